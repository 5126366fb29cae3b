"""What a sandboxed command sees besides the workspace: nothing of the user's secrets, sockets or
agent-tui's own state.

`--ro-bind / /` shows the whole system read-only, which is what builds and tests need, but also
~/.ssh, cloud credentials, browser profiles, other agents' tokens, agent-tui's own database (every
project's stored outputs) and every unix socket. So on top of it:

- **socket folders** become empty: `/tmp` and `/var/tmp` (tmux, screen, X11, other programs'
  temp files, Kerberos tickets), `/run/user` and `$XDG_RUNTIME_DIR` (session bus, systemd,
  docker desktop, keyrings, pipewire); daemons' sockets elsewhere under `/run` are hidden by name.
  `/tmp` is a fresh writable folder per command; `$TMPDIR` is the one kept between commands.
- **secrets** (`SECRET_HOME`, files named by variables like `KUBECONFIG`) and **agent-tui's
  config, data and state folders** become empty and read-only, even inside the workspace.
- **variables** that lead to a socket or a terminal server (`TMUX`, `STY`, `DBUS_*`,
  `SSH_AUTH_SOCK`, `KITTY_LISTEN_ON`, VS Code's IPC hooks…) are unset.

The seccomp filter (tools/seccomp.py) is the wall for sockets; the folders are the wall for
files and a second one for sockets. `[sandbox] allow_read` and `[sandbox] unix_sockets` are the
user's opt-ins; a project file cannot set them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import agent_tui
from agent_tui.runtime import paths

SECRET_HOME = (
    # keys, cloud and registry credentials
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".oci",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".config/glab-cli",
    ".pypirc",
    ".npmrc",
    ".yarnrc.yml",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/rclone",
    ".config/op",
    ".config/doctl",
    ".password-store",
    ".local/share/keyrings",
    ".Xauthority",
    ".ICEauthority",
    # browsers and mail
    ".mozilla",
    ".thunderbird",
    ".librewolf",
    ".config/google-chrome",
    ".config/google-chrome-beta",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    "snap/firefox",
    "snap/chromium",
    ".var/app",
    # other agents' credentials and settings
    ".claude",
    ".claude.json",
    ".codex",
    ".gemini",
    ".config/github-copilot",
    ".continue",
    ".aider",
    ".local/share/opencode",
    # histories: commands and queries typed with secrets in them
    ".bash_history",
    ".zsh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".node_repl_history",
    ".viminfo",
)
"""Under $HOME: hidden from sandboxed commands unless `[sandbox] allow_read` names them."""

STARTUP_HOME = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".bash_aliases",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".xprofile",
    ".xinitrc",
    ".pam_environment",
    ".config/fish",
    ".config/autostart",
    ".config/systemd",
    ".config/environment.d",
    ".config/nvim",
    ".vimrc",
    ".emacs",
    ".emacs.d",
    ".local/bin",
)
"""Under $HOME: what runs on the user's next login, shell, editor or command. Read-only (and
removed if created) when the workspace contains the home folder; elsewhere it is read-only anyway."""

SECRET_ENV = (
    "KUBECONFIG",
    "AWS_SHARED_CREDENTIALS_FILE",
    "AWS_CONFIG_FILE",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "CLOUDSDK_CONFIG",
    "AZURE_CONFIG_DIR",
    "DOCKER_CONFIG",
    "GNUPGHOME",
    "PASSWORD_STORE_DIR",
    "NETRC",
    "PGPASSFILE",
    "NPM_CONFIG_USERCONFIG",
    "GH_CONFIG_DIR",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "XAUTHORITY",
    "KRB5CCNAME",
)
"""Variables naming a secret file or folder (`:`-separated lists too): what they name is hidden."""

SOCKET_ENV = (
    "TMUX",
    "TMUX_PANE",
    "STY",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "WAYLAND_SOCKET",
    "XAUTHORITY",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "PULSE_SERVER",
    "PIPEWIRE_REMOTE",
    "GNOME_KEYRING_CONTROL",
    "VSCODE_IPC_HOOK",
    "VSCODE_IPC_HOOK_CLI",
    "VSCODE_GIT_IPC_HANDLE",
    "VSCODE_GIT_ASKPASS_MAIN",
    "VSCODE_GIT_ASKPASS_NODE",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "KITTY_LISTEN_ON",
    "WEZTERM_UNIX_SOCKET",
    "ALACRITTY_SOCKET",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "EMACS_SOCKET_NAME",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "I3SOCK",
    "SWAYSOCK",
    "HYPRLAND_INSTANCE_SIGNATURE",
    "KRB5CCNAME",
)
"""Variables that lead a command to a socket or a server of the user's session: unset."""

DAEMON_SOCKETS = (
    "/run/docker.sock",
    "/run/podman/podman.sock",
    "/run/containerd/containerd.sock",
    "/run/dbus/system_bus_socket",
    "/run/snapd.socket",
    "/run/snapd-snap.socket",
    "/run/screen",
)
"""Outside the emptied folders; hidden by name (they matter when the socket filter is off)."""


def socket_folders(environ: Mapping[str, str] | None = None) -> list[Path]:
    """The folders emptied in every sandbox, outermost first (existing ones only). A runtime dir
    that is no private folder (`/`, `/run`) is not taken: emptying it would hide the system."""
    environ = os.environ if environ is None else environ
    names = ["/tmp", "/var/tmp", "/run/user", environ.get("XDG_RUNTIME_DIR", "")]
    found: list[Path] = []
    for name in names:
        if not name or not os.path.isabs(name):
            continue
        path = Path(os.path.realpath(name))
        if len(path.parts) >= 3 or name in ("/tmp", "/var/tmp"):
            if path.is_dir() and path not in found:
                found.append(path)
    return found


def own_installation() -> list[Path]:
    """Where agent-tui itself lives: the Python that runs it (its venv and the base interpreter)
    and the folder holding the `agent_tui` package (site-packages, or a source checkout). Kept
    readable when one sits in an emptied folder (a checkout in /tmp): commands and MCP servers
    installed beside agent-tui run from there, and none of these holds a user's secrets."""
    import sys

    package_home = Path(agent_tui.__file__).resolve().parent.parent
    found = [Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix)] + [package_home]
    return list(dict.fromkeys(found))


def _within(path: Path, folder: Path) -> bool:
    inner, outer = str(path), str(folder)
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def within(path: Path, folders: Iterable[Path]) -> bool:
    return any(_within(path, f) for f in folders)


def _expand(raw: str, home: Path) -> Path | None:
    text = os.path.expandvars(raw.strip())
    if text.startswith("~"):
        text = str(home) + text[1:]
    if not text or not os.path.isabs(text):
        return None
    return Path(os.path.realpath(text))


def agent_state(db_path: Path | None = None) -> list[Path]:
    """agent-tui's own folders and database: stored outputs of every project, config, logs."""
    found = [paths.config_dir(), paths.data_dir(), paths.state_dir()]
    if db_path is not None:
        db = Path(os.path.realpath(db_path))
        found += [db, *(db.with_name(db.name + s) for s in ("-wal", "-shm", "-journal"))]
    return found


@dataclass(frozen=True)
class OptIns:
    """What the user let sandboxed commands reach (`[sandbox] allow_read`, `unix_sockets`)."""

    allow_read: tuple[str, ...] = ()
    unix_sockets: tuple[str, ...] = ()

    def readable(self, home: Path) -> list[Path]:
        return [p for p in (_expand(r, home) for r in self.allow_read) if p is not None]

    def sockets(self, home: Path) -> list[Path]:
        return [p for p in (_expand(r, home) for r in self.unix_sockets) if p is not None]


def hidden(
    extra: Sequence[Path], allowed: Sequence[Path], environ: Mapping[str, str] | None = None
) -> list[Path]:
    """Existing secret paths (resolved) to hide, minus those the user allowed. Strings, not
    Paths, and one listing per folder instead of a stat per name: this runs for every command."""
    environ = os.environ if environ is None else environ
    home = environ.get("HOME") or str(Path.home())
    candidates = [os.path.join(home, name) for name in SECRET_HOME]
    for name in SECRET_ENV:
        for part in environ.get(name, "").split(":"):
            part = part.removeprefix("FILE:").removeprefix("DIR:")
            if part and os.path.isabs(part):
                candidates.append(part)
    candidates += [str(p) for p in extra]
    listed: dict[str, set[str]] = {}
    found: list[Path] = []
    for path in candidates:
        parent, name = os.path.split(path)
        if parent not in listed:
            try:
                listed[parent] = set(os.listdir(parent))
            except OSError:
                listed[parent] = set()
        if name not in listed[parent]:
            continue
        real = Path(os.path.realpath(path))
        if real not in found and real != Path("/") and not within(real, allowed) and real.exists():
            found.append(real)
    return found


def startup_files(workspace: Path, environ: Mapping[str, str] | None = None) -> list[Path]:
    """STARTUP_HOME paths when `workspace` contains the home folder (nothing otherwise)."""
    environ = os.environ if environ is None else environ
    home = Path(os.path.realpath(environ.get("HOME") or Path.home()))
    if not _within(home, workspace):
        return []
    return [home / name for name in STARTUP_HOME]


def unset_names(allowed_sockets: Sequence[Path], environ: Mapping[str, str] | None = None) -> list[str]:
    """SOCKET_ENV names that are set and do not lead to a socket the user allowed."""
    environ = os.environ if environ is None else environ
    keep = [str(p) for p in allowed_sockets]
    return [
        name for name in SOCKET_ENV if name in environ and not any(k and k in environ[name] for k in keep)
    ]


def daemon_sockets(allowed: Sequence[Path]) -> list[Path]:
    found = []
    for name in DAEMON_SOCKETS:
        if not os.path.lexists(name):
            continue
        real = Path(os.path.realpath(name))
        if real not in allowed and real.exists() and not within(real, [Path("/run/user")]):
            found.append(real)
    return found

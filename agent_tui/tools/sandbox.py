"""The command sandbox: bash and MCP stdio servers confined with bubblewrap on Linux.

Approval prompts alone are no wall once a command is approved (or `--yes` is given): it can write
anywhere the user can and reach any host. In `workspace-write` mode (the default where bwrap
works) a command sees the whole system read-only, may write only in the workspace and in a
private temp dir (`$TMPDIR`), cannot touch the protected paths (`.git/hooks`, `.git/config`,
`.agent-tui.toml`, the user's config dir) even inside the workspace, and has no network unless
`[sandbox] network = true`. `read-only` leaves only the private temp dir writable; `off` is the
behaviour without a sandbox. bwrap runs in the command's own process group with a fresh PID
namespace and `--die-with-parent`, so killing the group (timeout, cancel) ends the whole tree.

bwrap is probed once at start (present *and* able to create namespaces); when it is not, the mode
falls back to `off` and `notice` says so once, with how to install it — never silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_tui import paths

log = logging.getLogger(__name__)

MODES = ("workspace-write", "read-only", "off")
DEFAULT_MODE = "workspace-write"
PROTECTED_NAMES = (".git/hooks", ".git/config", ".agent-tui.toml")
"""Inside the workspace, read-only even in workspace-write mode: hooks and config run code later."""
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `sudo apt install bubblewrap`, Fedora: `sudo dnf install "
    'bubblewrap`, Arch: `sudo pacman -S bubblewrap`), or set [sandbox] mode = "off" to hide this notice'
)
PROBE_TIMEOUT = 10.0

# What a command's output says when the sandbox, not the command, was the problem.
_BLOCKED_WRITE = re.compile(
    rb"Read-only file system|Device or resource busy"
)  # busy: a rename over a protected mount
_BLOCKED_NET = re.compile(
    rb"Network is unreachable|Temporary failure in name resolution|Could not resolve host|"
    rb"Name or service not known|No address associated with hostname|Connection refused|"
    rb"getaddrinfo failed|nodename nor servname"
)
_SCAN_OVERLAP = 64


@dataclass(frozen=True)
class Probe:
    """Whether bwrap can sandbox commands here: its path, or why not."""

    bwrap: str | None
    problem: str | None = None


def _base_flags(network: bool) -> list[str]:
    flags = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if not network:
        flags.append("--unshare-net")
    return [*flags, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]


def probe(path_env: str | None = None) -> Probe:
    """Find bwrap on `path_env` (default $PATH) and check it can build a sandbox (cached per PATH)."""
    return _probe(os.environ.get("PATH", os.defpath) if path_env is None else path_env)


@lru_cache(maxsize=8)
def _probe(path_env: str) -> Probe:
    if not sys.platform.startswith("linux"):
        return Probe(None, f"the sandbox needs Linux and bubblewrap; {sys.platform} is not supported yet")
    found = shutil.which("bwrap", path=path_env)
    if found is None:
        return Probe(None, "bwrap (bubblewrap) is not installed or not on PATH")
    try:
        done = subprocess.run(
            [found, *_base_flags(network=False), "--", "true"],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(None, f"bwrap could not be run ({exc})")
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return Probe(
            None,
            f"bwrap cannot create namespaces here ({why}); unprivileged user namespaces may be "
            "disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)",
        )
    return Probe(found)


async def probe_async(path_env: str | None = None) -> Probe:
    return await asyncio.to_thread(probe, path_env)


def _agent_sockets(network: bool) -> list[str]:
    """Unix sockets that would hand a command more than the sandbox allows, hidden behind
    /dev/null: a read-only mount does not stop connect(), and the container daemons' sockets are
    root on the host. Without network the SSH agent and the session bus go too."""
    uid = os.getuid()
    names = [
        "/run/docker.sock",
        "/run/podman/podman.sock",
        "/run/containerd/containerd.sock",
        f"/run/user/{uid}/docker.sock",
        f"/run/user/{uid}/podman/podman.sock",
    ]
    if not network:
        names += [os.environ.get("SSH_AUTH_SOCK", ""), f"/run/user/{uid}/bus"]
    found = []
    for name in names:
        if not name:
            continue
        path = Path(name).resolve()
        try:
            if path.is_socket():
                found.append(str(path))
        except OSError:
            continue
    return list(dict.fromkeys(found))


class BlockScan:
    """Watches a command's output stream for the messages a sandbox refusal produces."""

    def __init__(self) -> None:
        self.write = False
        self.network = False
        self._tail = b""

    def feed(self, chunk: bytes) -> None:
        data = self._tail + chunk
        self.write = self.write or bool(_BLOCKED_WRITE.search(data))
        self.network = self.network or bool(_BLOCKED_NET.search(data))
        self._tail = data[-_SCAN_OVERLAP:]


class Sandbox:
    """The sandbox of one app: its mode (switchable with /sandbox), network and approval policy."""

    def __init__(
        self,
        mode: str = DEFAULT_MODE,
        *,
        workspace: Path,
        probe: Probe,
        network: bool = False,
        auto_approve: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"sandbox mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.workspace = workspace.resolve()
        self.probe = probe
        self.requested = mode
        self.configured_off = mode == "off"
        """Off by the user's own choice at start: the top bar has nothing to remind them of."""
        self.mode = mode if probe.bwrap is not None else "off"
        self.network = network
        self.auto_approve = auto_approve
        self._tmpdir: Path | None = None

    @property
    def available(self) -> bool:
        return self.probe.bwrap is not None

    @property
    def active(self) -> bool:
        return self.mode != "off"

    @property
    def notice(self) -> str | None:
        """The fallback notice when a sandbox was asked for and cannot be had; None otherwise."""
        if self.requested == "off" or self.available:
            return None
        return (
            f"Sandbox unavailable: {self.probe.problem}. Commands run unsandboxed and are asked "
            f"about as usual; to sandbox them, {INSTALL_HINT}."
        )

    def set_mode(self, mode: str) -> str:
        """Switch the mode; returns the line to show. ValueError for a mode that cannot be had."""
        mode = mode.strip()
        if mode not in MODES:
            raise ValueError(f"unknown sandbox mode {mode!r} (modes: {', '.join(MODES)})")
        if mode != "off" and not self.available:
            raise ValueError(f"no sandbox here: {self.probe.problem}; {INSTALL_HINT}")
        self.mode = self.requested = mode
        self.configured_off = False  # switched in this session: keep it in view from now on
        return f"Sandbox: {self.label()}"

    def label(self) -> str:
        """Short form for the top bar: `workspace-write · no network`, `off`."""
        if not self.active:
            return "off (unavailable)" if self.requested != "off" else "off"
        parts = [self.mode, "network" if self.network else "no network"]
        if self.auto_approve:
            parts.append("auto-approve")
        return " · ".join(parts)

    def topbar(self) -> str | None:
        """The top bar's part: None when the config chose off (nothing to remind them of)."""
        return None if self.configured_off else f"sandbox: {self.label()}"

    def describe(self) -> str:
        """What a command may do, in a few lines for /sandbox and /help."""
        if not self.active:
            why = f" ({self.probe.problem})" if self.requested != "off" and not self.available else ""
            return (
                f"Sandbox off{why}: commands and MCP servers run with your own rights; approvals "
                "are the only guard."
            )
        writes = (
            f"the workspace ({self.workspace}) and a private temp dir ($TMPDIR)"
            if self.mode == "workspace-write"
            else "only a private temp dir ($TMPDIR); the workspace is read-only"
        )
        lines = [
            f"Sandbox {self.mode} (bubblewrap): commands read everything, write {writes}.",
            "Protected even inside the workspace: " + ", ".join(PROTECTED_NAMES) + ", the config dir.",
            "Network: " + ("allowed." if self.network else "off (no connections, not even to localhost)."),
            "Approvals: "
            + (
                "sandboxed commands run without asking."
                if self.auto_approve and not self.network
                else "asked as usual."
            )
            + " An unsandboxed rerun always asks.",
        ]
        return "\n".join(lines)

    def auto_allows(self) -> bool:
        """Whether a sandboxed command may run without asking (auto_approve, no network)."""
        return self.active and self.auto_approve and not self.network

    # -- building the command --------------------------------------------------------------

    def tmpdir(self) -> Path:
        """The private temp dir every sandboxed command of this app shares (made on first use)."""
        if self._tmpdir is None or not self._tmpdir.is_dir():
            self._tmpdir = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-")).resolve()
        return self._tmpdir

    def protected_paths(self) -> list[Path]:
        return [self.workspace / name for name in PROTECTED_NAMES] + [paths.config_dir()]

    def wrap(
        self, argv: Sequence[str], *, cwd: Path | str | None = None, network: bool | None = None
    ) -> list[str]:
        """`argv` run inside the sandbox (unchanged when the sandbox is off)."""
        if not self.active or self.probe.bwrap is None:
            return list(argv)
        net = self.network if network is None else network
        tmp = str(self.tmpdir())
        cmd = [self.probe.bwrap, *_base_flags(net), "--bind", tmp, tmp, "--setenv", "TMPDIR", tmp]
        ws = str(self.workspace)
        if self.mode == "workspace-write":
            cmd += ["--bind", ws, ws, *self._git_dir_binds()]
        else:
            cmd += ["--ro-bind", ws, ws]
        for path in self.protected_paths():
            if path.exists():
                cmd += ["--ro-bind", str(path), str(path)]
        for sock in _agent_sockets(net):
            cmd += ["--ro-bind", "/dev/null", sock]
        cmd += ["--chdir", str(cwd or self.workspace), "--", *argv]
        return cmd

    def _git_dir_binds(self) -> list[str]:
        """Git must be able to commit when its metadata lives outside the workspace (the workspace
        is a sub-folder of the repository, or a linked worktree whose `.git` file names its git
        dir): that git dir is writable too, but its hooks and config stay read-only."""
        folder = self.workspace
        while True:
            dot_git = folder / ".git"
            if dot_git.exists() or folder.parent == folder:
                break
            folder = folder.parent
        if dot_git.is_dir():
            if folder == self.workspace:
                return []  # inside the workspace: PROTECTED_NAMES covers hooks and config
            gitdir = common = dot_git.resolve()
        elif dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return []
            if not text.startswith("gitdir:"):
                return []
            gitdir = (folder / text.removeprefix("gitdir:").strip()).resolve()
            try:
                common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
            except OSError:
                common = gitdir
        else:
            return []
        binds: list[str] = []
        for place in dict.fromkeys((gitdir, common)):
            if place.is_dir():
                binds += ["--bind", str(place), str(place)]
        for name in ("hooks", "config"):
            for place in dict.fromkeys((common, gitdir)):
                if (place / name).exists():
                    binds += ["--ro-bind", str(place / name), str(place / name)]
        return binds

    # -- after the command -----------------------------------------------------------------

    def missing_protected(self) -> list[Path]:
        """Protected paths that do not exist yet but could be created (their parent exists): a
        bind mount cannot guard a path that is not there, so `sweep` checks them afterwards."""
        return [p for p in self.protected_paths()[:-1] if not p.exists() and p.parent.is_dir()]

    def sweep(self, missing: Sequence[Path]) -> list[str]:
        """Remove protected paths a sandboxed command created; one line per removal."""
        lines = []
        for path in missing:
            if not (path.exists() or path.is_symlink()):
                continue
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except OSError as exc:
                log.warning("could not remove protected path %s: %s", path, exc)
                lines.append(
                    f"sandbox: the command created protected {path.name} and it could not be removed"
                )
                continue
            lines.append(
                f"sandbox: removed {path.relative_to(self.workspace)}, which the command created (protected path)"
            )
        return lines

    def blocked_hint(self, scan: BlockScan, exit_code: int | None) -> str | None:
        """What to tell the model when the output shows a sandbox refusal. A refused write is
        specific enough to report even when the command's last step succeeded (`… ; echo done`);
        "connection refused" also appears in healthy logs, so only a failed command counts it."""
        what = []
        if scan.write:
            what.append("a write outside the writable places (read-only file system)")
        if scan.network and not self.network and exit_code != 0:
            what.append("a network connection (the network is off)")
        if not what:
            return None
        return (
            f"[sandbox {self.mode} blocked {' and '.join(what)}. Writable: "
            f"{'the workspace and ' if self.mode == 'workspace-write' else ''}$TMPDIR. If the "
            "command really must run outside the sandbox, call bash again with the same command "
            "and unsandboxed: true — the user will be asked.]"
        )

    def write_refusal(self, target: Path) -> str | None:
        """Why a file tool may not write `target` under this sandbox, or None."""
        if not self.active:
            return None
        if self.mode == "read-only":
            return "the sandbox is read-only (/sandbox switches modes); files cannot be changed"
        resolved = target.resolve(strict=False)
        for path in self.protected_paths():
            p = path.resolve(strict=False)
            if resolved == p or p in resolved.parents:
                return f"{path} is protected by the sandbox (git hooks and config files run code later)"
        return None

    def close(self) -> None:
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

"""The command sandbox: bash and MCP stdio servers confined with bubblewrap on Linux.

Approval prompts alone are no wall once a command is approved (or `--yes` is given): it can write
anywhere the user can and reach any host. In `workspace-write` mode (the default where bwrap
works) a command sees the workspace and the system's files read-only, may write only in the
workspace and in a private temp dir (`$TMPDIR`), cannot touch the protected paths (all of git's
metadata, `.agent-tui.toml`, `.agent-tui/`, `.claude/`, the rules files) even inside the
workspace, and has no network unless `[sandbox] network = true`. It sees nothing of the user's:
no unix socket (tools/seccomp.py), no secrets, sockets folders or agent-tui state
(tools/sandbox_view.py). `read-only` leaves only the private temp dir writable; `off` is the
behaviour without a sandbox. bwrap runs in the command's own process group with a fresh PID
namespace and `--die-with-parent`, so killing the group (timeout, cancel) ends the whole tree.

bwrap is probed once at start (tools/sandbox_probe.py); when it cannot run, the mode falls back
to `off` and `notice` says so once, with how to install it — never silently.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from agent_tui.policy import project_layout
from agent_tui.runtime import paths
from agent_tui.tools import gitmeta, seccomp
from agent_tui.tools import sandbox_view as view
from agent_tui.tools.sandbox_probe import Probe, base_flags, probe, probe_async
from agent_tui.tools.sandbox_scan import BlockScan
from agent_tui.tools.workspace import within

__all__ = ["MODES", "BlockScan", "Probe", "Sandbox", "probe", "probe_async"]

log = logging.getLogger(__name__)

MODES = ("workspace-write", "read-only", "off")
DEFAULT_MODE = "workspace-write"
PROTECTED_NAMES = (".git", paths.CONFIG_NAME, str(project_layout.OWN_DIR), str(project_layout.CLAUDE_DIR))
"""Inside the workspace, read-only even in workspace-write mode: git metadata, agent-tui's and
Claude's project settings, agents, commands and skills run code or steer later sessions. So do
whatever git metadata leads to (tools/gitmeta.py) and the rules files (`RULES_FILES`)."""
RULES_NAMES = ("AGENTS.md", "CLAUDE.md")
RULES_FILES = frozenset({"agents.md", "agent.md", "claude.md"})
"""Rules files every later session obeys, in the workspace's root, however spelled."""
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `sudo apt install bubblewrap`, Fedora: `sudo dnf install "
    'bubblewrap`, Arch: `sudo pacman -S bubblewrap`), or set [sandbox] mode = "off" to hide this notice'
)


def _hide(path: Path, emptied: list[Path], opened: Sequence[Path] = ()) -> list[str]:
    """bwrap flags that make `path` empty: /dev/null over a file, an empty read-only folder over
    a folder — one mount; a fresh tmpfs (remounted read-only at the end) when something the user
    opened must be mounted inside it."""
    if not path.is_dir():
        return ["--ro-bind", "/dev/null", str(path)]
    if any(view.within(p, [path]) for p in opened):
        emptied.append(path)
        return ["--tmpfs", str(path)]
    return ["--ro-bind", str(seccomp.empty_folder()), str(path)]


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
        allow_read: Sequence[str] = (),
        unix_sockets: Sequence[str] = (),
        db_path: Path | str | None = None,
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
        self.opt_ins = view.OptIns(tuple(allow_read), tuple(unix_sockets))
        """What the user let commands read and connect to beyond the workspace."""
        self.db_path = Path(db_path).expanduser() if db_path is not None else None
        """A database outside the data dir (`[store] db`), hidden as the data dir is."""
        self._agent_state = view.agent_state(self.db_path)
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
            f"Sandbox {self.mode} (bubblewrap): commands read the system and the workspace, write {writes}.",
            "Protected even inside the workspace: " + ", ".join(PROTECTED_NAMES) + ", the rules "
            "files, core.hooksPath and what git config includes.",
            "Hidden: your secrets (~/.ssh, cloud and registry credentials, browser profiles, other "
            "agents' folders), agent-tui's own config, data and state, /tmp, $XDG_RUNTIME_DIR"
            + (
                f"; readable by your choice: {', '.join(self.opt_ins.allow_read)}"
                if self.opt_ins.allow_read
                else ""
            )
            + ".",
            "Unix sockets: "
            + (
                f"only the ones you allowed ({', '.join(self.opt_ins.unix_sockets)}) and any outside "
                "the hidden folders (the socket filter is off)."
                if self.opt_ins.unix_sockets
                else (
                    "none (tmux, D-Bus, docker, the SSH agent…: socket() of AF_UNIX is refused)."
                    if self.probe.seccomp and seccomp.supported()
                    else "the ones in hidden folders are out of reach; the socket filter is not available here."
                )
            ),
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

    def auto_allows(self, session_auto: bool = False) -> bool:
        """Whether a sandboxed command may run without asking (auto_approve, or the session's
        `auto_sandboxed` mode; no network)."""
        return self.active and (self.auto_approve or session_auto) and not self.network

    # -- building the command --------------------------------------------------------------

    def tmpdir(self) -> Path:
        """The private temp dir every sandboxed command of this app shares (made on first use)."""
        if self._tmpdir is None or not self._tmpdir.is_dir():
            self._tmpdir = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-")).resolve()
        return self._tmpdir

    def protected_paths(self) -> list[Path]:
        """Paths a file tool may not write under the sandbox (bash sees them read-only)."""
        return [*self._protected_in_workspace(gitmeta.scan(self.workspace)), paths.config_dir()]

    def _protected_in_workspace(self, meta: gitmeta.GitMeta) -> list[Path]:
        names = [self.workspace / name for name in PROTECTED_NAMES]
        startup = [p for p in view.startup_files(self.workspace) if p.exists()]
        return list(dict.fromkeys([*names, *self._rules_files(), *meta.paths, *startup]))

    def _rules_files(self) -> list[Path]:
        """The workspace's rules files as they are spelled there (AGENTS.md, claude.md…)."""
        try:
            with os.scandir(self.workspace) as entries:
                return [Path(e.path) for e in entries if e.name.lower() in RULES_FILES]
        except OSError:
            return []

    def wrap(
        self, argv: Sequence[str], *, cwd: Path | str | None = None, network: bool | None = None
    ) -> list[str]:
        """`argv` run inside the sandbox (unchanged when the sandbox is off)."""
        if not self.active or self.probe.bwrap is None:
            return list(argv)
        net = self.network if network is None else network
        tmp, ws = self.tmpdir(), self.workspace
        home = Path(os.environ.get("HOME") or Path.home())
        readable, sockets = self.opt_ins.readable(home), self.opt_ins.sockets(home)
        folders = [f for f in view.socket_folders() if not view.within(f, [ws])]
        meta = gitmeta.scan(ws)
        bpf = seccomp.filter_file() if self.probe.seccomp and not sockets else None
        cmd = [self.probe.bwrap, *base_flags(net)]
        emptied = list(folders)  # remounted read-only last: mount points are made inside first
        for folder in folders:
            cmd += ["--tmpfs", str(folder)]
        for sock in view.daemon_sockets(sockets):
            cmd += _hide(sock, emptied, [*readable, *sockets])
        if meta.top is not None and meta.top != ws and view.within(meta.top, folders):
            cmd += ["--ro-bind", str(meta.top), str(meta.top)]  # git sees the rest of its tree
        cmd += ["--bind", str(tmp), str(tmp), "--setenv", "TMPDIR", str(tmp)]
        writable = self.mode == "workspace-write"
        cmd += ["--bind" if writable else "--ro-bind", str(ws), str(ws)]
        masked: list[Path] = []
        for path in view.hidden(self._agent_state, readable):
            if view.within(ws, [path]) or view.within(tmp, [path]):
                continue  # the user works in there: it is the workspace, not a secret
            masked.append(path)
            if view.within(path, folders) and not view.within(path, [ws, tmp]):
                continue  # already out of sight
            cmd += _hide(path, emptied, [*readable, *sockets])
        for path in [*readable, *sockets]:
            if path.exists() and view.within(path, emptied) and not view.within(path, [ws]):
                cmd += ["--ro-bind", str(path), str(path)]
        kept = [*self._protected_in_workspace(meta), seccomp.folder()] if writable else []
        bound: list[Path] = []
        for path in sorted(kept, key=lambda p: len(p.parts)):  # a folder covers what is in it
            if view.within(path, [ws]) and not view.within(path, [*bound, *masked]) and path.exists():
                bound.append(path)
                cmd += ["--ro-bind", str(path), str(path)]
        for path in meta.paths:  # git metadata in an emptied folder: readable, as before
            if not view.within(path, [ws]) and view.within(path, folders) and path.exists():
                cmd += ["--ro-bind", str(path), str(path)]
        for path in view.own_installation():
            if path.exists() and view.within(path, emptied) and not view.within(path, [ws, tmp]):
                cmd += ["--ro-bind", str(path), str(path)]
        for folder in emptied:
            cmd += ["--remount-ro", str(folder)]
        for name in view.unset_names(sockets):
            cmd += ["--unsetenv", name]
        if bpf is not None:
            cmd += ["--seccomp", str(seccomp.FD)]
        cmd += ["--chdir", str(cwd or ws), "--", *argv]
        return seccomp.launcher(cmd, bpf) if bpf is not None else cmd

    # -- after the command -----------------------------------------------------------------

    def missing_protected(self) -> list[Path]:
        """Protected paths that do not exist yet but could be created (their parent exists): a
        bind mount cannot guard a path that is not there, so `sweep` checks them afterwards."""
        if self.mode != "workspace-write":
            return []
        meta = gitmeta.scan(self.workspace)
        named = [self.workspace / name for name in PROTECTED_NAMES]
        if not self._rules_files():  # one spelling is enough to catch: the usual one
            named += [self.workspace / name for name in RULES_NAMES]
        found = [*named, *meta.missing, *view.startup_files(self.workspace)]
        return [
            p
            for p in dict.fromkeys(found)
            if view.within(p, [self.workspace]) and not (p.exists() or p.is_symlink()) and p.parent.is_dir()
        ]

    async def closing_lines(
        self, status: str, summary: str, missing: Sequence[Path], hint: str | None
    ) -> tuple[str, str]:
        """After a sandboxed command, whoever ran it: protected paths it created are swept, and the
        status line and summary say what was removed and what the sandbox refused."""
        notes = await asyncio.to_thread(self.sweep, missing)
        status = "\n".join([status, *(f"[{n}]" for n in notes), *([hint] if hint else [])])
        return status, summary + " · blocked by sandbox" if hint else summary

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
            shown = path.relative_to(self.workspace) if view.within(path, [self.workspace]) else path
            lines.append(f"sandbox: removed {shown}, which the command created (protected path)")
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
        own = (str(self.workspace).encode(), str(self.tmpdir()).encode())
        if exit_code != 0 and any(not any(o in line for o in own) for line in scan.hidden):
            what.append("a path in a folder it empties (/tmp, /var/tmp, /run/user; use $TMPDIR)")
        if scan.unix_socket and exit_code != 0:
            what.append(
                "a unix socket (sockets are off; only the user can allow one, with [sandbox] unix_sockets)"
            )
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
            if within(p, resolved):
                return f"{path} is protected by the sandbox (git hooks and config files run code later)"
        return None

    def close(self) -> None:
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

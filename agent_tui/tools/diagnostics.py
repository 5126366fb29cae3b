"""Diagnostics after an edit: the language server for the edited file's language, when one is
installed, reports what the new text breaks, and the edit's result says so.

Servers are found on PATH, never installed by us: `ruff server` or pyright for Python,
typescript-language-server for TypeScript and JavaScript, gopls for Go, rust-analyzer for Rust.
Each starts on the first edit of its language, in the workspace, with bash's environment (no
secrets) and — when the sandbox is on — under the same bubblewrap wrapping as bash (read-only system, writable workspace, no network):
a server runs the project's plugins and configuration, so it is walled in as any command is. The
servers are the workspace's: every session of the app and every sub-agent shares them (a child's
edits get the same diagnostics), and they stop when the app's services close. One that cannot start, or does not answer within `[diagnostics] timeout`, is named once
and the edit's result simply has no diagnostics. `/tools` lists which servers run.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.tools.env import scrubbed
from agent_tui.tools.lsp_client import Diagnostic, LspClient

if TYPE_CHECKING:
    from agent_tui.config.schema import DiagnosticsSettings
    from agent_tui.tools.sandbox import Sandbox

log = logging.getLogger(__name__)

SERVERS: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...]]] = {
    "python": ("python", (".py", ".pyi"), (("ruff", "server"), ("pyright-langserver", "--stdio"))),
    "typescript": (
        "typescript",
        (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"),
        (("typescript-language-server", "--stdio"),),
    ),
    "go": ("go", (".go",), (("gopls",),)),
    "rust": ("rust", (".rs",), (("rust-analyzer",),)),
}
"""Language → (LSP language id, file suffixes, server commands tried in order)."""

MAX_SHOWN = 20


def language_servers(
    workspace: Path,
    settings: DiagnosticsSettings,
    sandbox: Sandbox | None = None,
    passthrough: tuple[str, ...] = (),
) -> LanguageServers | None:
    """The workspace's servers as `[diagnostics]` says (None when turned off), walled in by
    `sandbox` (tools/sandbox.py Sandbox) while it is on, with bash's environment: the user's
    without its secrets but for `passthrough` ([tools] env_passthrough)."""
    if not settings.enabled:
        return None
    return LanguageServers(Path(workspace), settings.timeout, sandbox=sandbox, passthrough=tuple(passthrough))


def language_of(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return next((name for name, (_, suffixes, _) in SERVERS.items() if suffix in suffixes), None)


@dataclass
class LanguageServers:
    """The workspace's language servers, started on demand."""

    root: Path
    timeout: float = 5.0
    enabled: bool = True
    sandbox: Sandbox | None = None
    """The app's command sandbox: a server starts inside it while it is on."""
    passthrough: tuple[str, ...] = ()
    """Secret-looking variables the user lets commands have (tools/env.py)."""
    clients: dict[str, LspClient] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    """Languages whose server could not start or answer, with why (said once, not retried)."""
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def available(self) -> list[str]:
        """`/tools`: each language with a server on PATH, and whether it runs."""
        out = []
        for language, (_, _, commands) in SERVERS.items():
            found = next((c for c in commands if shutil.which(c[0])), None)
            if found is None:
                continue
            client = self.clients.get(language)
            if client and client.running:
                state = "running" if client.watch_parent else "running in the sandbox"
            else:
                state = self.failed.get(language, "starts on the first edit")
            out.append(f"{' '.join(found)} ({language}): {state}")
        return out

    async def after_edit(self, path: Path) -> str:
        """The diagnostics for `path` as it is now, as lines for the edit's result ('' when
        there is no server for it, or it had nothing to say in time)."""
        language = language_of(path)
        if not self.enabled or language is None or language in self.failed:
            return ""
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8", errors="replace")
            async with self._lock:
                client = await self._client(language)
                if client is None:
                    return ""
                found = await client.diagnostics(path, text, self.timeout)
        except (TimeoutError, OSError, ConnectionError) as exc:
            self.failed[language] = f"stopped: no answer ({type(exc).__name__})"
            await self._stop(language)
            return f"[diagnostics: the {language} language server did not answer; it is off for this session]"
        return _describe(found, path, self.root)

    async def _client(self, language: str) -> LspClient | None:
        client = self.clients.get(language)
        if client is not None and client.running:
            return client
        language_id, _, commands = SERVERS[language]
        command = next((c for c in commands if shutil.which(c[0])), None)
        if command is None:
            return None
        argv = [shutil.which(command[0]) or command[0], *command[1:]]
        sandbox = self.sandbox
        walled = sandbox is not None and sandbox.active
        if sandbox is not None and walled:
            argv = await asyncio.to_thread(sandbox.wrap, argv, cwd=self.root, network=False)

        env = scrubbed(self.passthrough)[0]  # a command like bash: no keys of the user's
        client = LspClient(argv, self.root, language_id, watch_parent=not walled, env=env)
        self.clients[language] = client
        try:
            await client.start(self.timeout)
        except (TimeoutError, OSError, ConnectionError) as exc:
            self.failed[language] = f"could not start ({exc or type(exc).__name__})"
            await self._stop(language)
            return None
        return client

    async def _stop(self, language: str) -> None:
        client = self.clients.pop(language, None)
        if client is not None:
            await client.stop()

    async def close(self) -> None:
        """Stop every server (the session ends)."""
        for language in list(self.clients):
            await self._stop(language)


def _describe(found: list[Diagnostic], path: Path, root: Path) -> str:
    try:
        shown = str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        shown = str(path)
    if not found:
        return f"[diagnostics: none in {shown}]"
    ordered = sorted(found, key=lambda d: (d.severity != "error", d.line, d.column))
    lines = [d.describe(shown) for d in ordered[:MAX_SHOWN]]
    more = f"\n… {len(found) - MAX_SHOWN} more" if len(found) > MAX_SHOWN else ""
    return f"[diagnostics: {len(found)} in {shown}]\n" + "\n".join(lines) + more

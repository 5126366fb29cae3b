"""`agent-tui serve`: the core as an HTTP server for scripts, CI and other front ends
(agent_tui/frontends/server/). It binds 127.0.0.1 unless told otherwise, makes a new bearer token at
every start (a 0600 file beside the database, printed once) and refuses every request without
it. Starlette and uvicorn are imported here, inside the command: the TUI and `run` never load them.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import typer

from agent_tui.frontends.cli.common import SANDBOX_HELP, fail, fail_startup, load_or_fail, model_overrides
from agent_tui.runtime.logs import setup_logging

LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def serve(
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind; anything but loopback is reachable by others."
    ),
    port: int = typer.Option(8765, "--port", help="Port (0: any free one; the URL printed says which)."),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name."),
    api_base: str | None = typer.Option(None, "--api-base", help="OpenAI-compatible base URL."),
    db: Path | None = typer.Option(None, "--db", help="SQLite database path."),
    sandbox: str | None = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
    approval_timeout: float = typer.Option(
        300.0, "--approval-timeout", help="Seconds an approval waits for a client before it is denied."
    ),
) -> None:
    """Serve sessions over HTTP: operations in, a resumable event stream out (see docs/server.md)."""
    import asyncio

    setup_logging()
    if not 0 <= port <= 65535:
        fail(f"--port must be 0-65535, got {port}", 2)
    if approval_timeout <= 0:
        fail("--approval-timeout must be above 0 seconds", 2)
    config = load_or_fail(
        model_overrides(model, api_base, None, None, db, sandbox), trusted=False, notify=True
    ).config
    asyncio.run(_serve(config, host, port, db, approval_timeout))


async def _serve(config: object, host: str, port: int, db: Path | None, approval_timeout: float) -> None:
    import contextlib
    import socket

    import uvicorn

    from agent_tui.compose.factory import build_services, db_path_for  # lazy: start-up (loads with the CLI)
    from agent_tui.frontends.server.http import build_app  # lazy: heavy
    from agent_tui.frontends.server.hub import Hub  # lazy: start-up
    from agent_tui.frontends.server.token import new_token, token_file  # lazy: start-up
    from agent_tui.store import StoreError  # lazy: start-up

    try:
        services = await build_services(config, db_path=db)  # type: ignore[arg-type]
    except StoreError as exc:
        fail_startup(str(exc), 1)
    hub = Hub(services, approval_timeout)
    path = token_file(db_path_for(services.config, db))
    token = new_token(path)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # before the URL is printed: a client that connects at once waits, not refused
    except OSError as exc:
        await hub.close()
        fail(f"cannot bind {host}:{port}: {exc.strerror}", 1)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"agent-tui serve: http://{shown}:{bound} (folder {services.workspace})", flush=True)
    print(
        f"token: {token} (also in {path}, readable by you only; send it as `Authorization: Bearer …`)",
        flush=True,
    )
    if host not in LOOPBACK:
        print(
            f"warning: bound to {host}: anyone who can reach it and has the token drives this agent; "
            "the traffic is not encrypted (put TLS in front)",
            file=sys.stderr,
            flush=True,
        )

    @contextlib.asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        yield
        await hub.close()  # the sessions' work and every command it started end with the server

    server = uvicorn.Server(
        uvicorn.Config(
            build_app(hub, token, lifespan),
            log_level="warning",
            timeout_graceful_shutdown=1,  # open event streams are cut after a second
            lifespan="on",
            access_log=False,
        )
    )
    try:
        await server.serve(sockets=[sock])
    finally:
        await hub.close()

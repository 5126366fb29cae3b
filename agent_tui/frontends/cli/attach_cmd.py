"""`agent-tui --attach URL`: open the TUI over a session `agent-tui serve` holds. The bearer token
comes from `--token`, else `AGENT_TUI_TOKEN`, else the token file `serve` wrote beside this
machine's database (the usual case: a server on this machine, or its port forwarded here with the
file copied). httpx and the attached app are imported here, only when --attach is given."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.compose.factory import db_path_for
from agent_tui.frontends.cli.common import fail, load_or_fail
from agent_tui.frontends.server.remote import RemoteDriver
from agent_tui.frontends.server.token import read_token, token_file

TOKEN_ENV = "AGENT_TUI_TOKEN"


def refuse_local_options(given: dict[str, object]) -> None:
    """The options that shape a local session mean nothing attached: the server's apply."""
    named = [name for name, value in given.items() if value not in (None, False)]
    if named:
        fail(
            f"{', '.join(named)} cannot go with --attach: the server's model, sandbox and folder apply "
            "(--attach takes -s/--session, --token and --db)",
            2,
        )


def find_token(token: str | None, db: Path | None) -> str:
    """The token to attach with; exits with what to do when there is none."""
    if token:
        return token
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV].strip()

    path = token_file(db_path_for(load_or_fail({}, trusted=False).config, db))
    try:
        return read_token(path)
    except OSError:
        fail(
            f"no token for --attach: pass --token, set {TOKEN_ENV}, or run `agent-tui serve` here ({path})", 2
        )


def launch_attached(url: str, *, token: str | None, session_id: str | None, db: Path | None) -> int:
    """Run the attached TUI until the user quits; the server and its session go on."""
    if not url.startswith(("http://", "https://")):
        fail(f"--attach takes the URL `agent-tui serve` printed (http://…), not {url!r}", 2)
    bearer = find_token(token, db)

    from agent_tui.frontends.server.client import AgentClient  # lazy: heavy
    from agent_tui.frontends.tui.attach_app import AttachApp  # lazy: textual

    async def opener() -> RemoteDriver:
        client = AgentClient(url, bearer)
        try:
            driver = await RemoteDriver.attach(client, session_id or None)
        except BaseException:
            await client.close()
            raise
        driver.owns_client = True
        return driver

    app = AttachApp(opener, where=url)
    app.run()
    return app.return_code or 0

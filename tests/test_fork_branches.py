"""A fork of a rewound session: `sessions fork ID --at N` copies the live branch only (no message
of a branch a rewind discarded), refuses a message number inside a discarded branch with one
line, and the discarded branch stays readable by ref from the source."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from agent_tui.agent.rewind import rewind_points
from agent_tui.compose.factory import build_services
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def sent_texts(request: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in request["messages"]
    ]


async def rewound_session(server, workspace: Path, db: Path) -> str:
    """Three turns, a rewind to before the second, and a new second turn. The transcript:
    1 u1 · 2 a1 · 3 u2 · 4 a2 · 5 u3 · 6 a3 · 7 rewind note · 8 u2' · 9 a2'."""
    services = await build_services(make_config(server, db), workspace=workspace)
    try:
        session = await services.new_session()
        for prompt, reply in (
            ("first: remember the colour blue", "noted: blue"),
            ("second: pick a codename", "the codename is zebrafish"),
            ("third: and a number", "the number is 77"),
        ):
            server.enqueue(Reply(text=reply))
            await collect(session.run_turn(prompt))
        points = await rewind_points(session)
        await session.rewind(points[1], "conversation")
        server.enqueue(Reply(text="green it is"))
        await collect(session.run_turn("second again: pick green instead"))
        await session.close()
        return session.session_id
    finally:
        await services.close()


class TestForkOfARewoundSession:
    async def test_fork_copies_only_the_live_branch(self, server, workspace, tmp_path):
        """`sessions fork ID --at 9` of a rewound session: the fork's transcript and its next
        request hold messages 1, 2 and 8 (the live branch), none of the discarded 3-7."""
        db = tmp_path / "f.db"
        source = await rewound_session(server, workspace, db)
        forked = cli(["sessions", "fork", source, "--at", "9", "--db", str(db)], workspace)
        assert forked.returncode == 0, forked.stderr
        new = forked.stdout.strip()

        shown = cli(["sessions", "show", new, "--db", str(db)], workspace)
        assert shown.returncode == 0, shown.stderr
        assert "first: remember" in shown.stdout
        assert "8\tuser\tchat\tsecond again" in shown.stdout  # numbered as in the source
        for discarded in ("zebrafish", "third: and a number", "rewound by the user"):
            assert discarded not in shown.stdout

        services = await build_services(make_config(server, db), workspace=workspace)
        try:
            session = await services.resume_session(new)
            server.enqueue(Reply(text="carrying on"))
            await collect(session.run_turn("carry on in the fork"))
            await session.close()
            stored = [m.content or "" for m in await services.store.sessions.transcript(new)]
            discarded = await services.store.transcript.read("m_3-6", session_id=source)
        finally:
            await services.close()
        sent = sent_texts(server.requests[-1])[1:]
        assert sent[0] == "first: remember the colour blue" and sent[1] == "noted: blue"
        assert "second again: pick green instead" in sent[2] and "carry on in the fork" in sent[-1]
        assert not any("zebrafish" in t or "third" in t or "green it is" in t for t in sent)
        assert not any("zebrafish" in t or "rewound" in t for t in stored)
        assert "zebrafish" in discarded  # the source keeps the discarded branch, by ref

    async def test_fork_inside_a_discarded_branch_is_one_line(self, server, workspace, tmp_path):
        """A message number inside a branch a rewind discarded is refused with one line that
        names the branch's range; nothing is created."""
        db = tmp_path / "f.db"
        source = await rewound_session(server, workspace, db)
        bad = cli(["sessions", "fork", source, "--at", "5", "--db", str(db)], workspace)
        assert bad.returncode != 0 and "Traceback" not in bad.stderr
        assert "discarded" in bad.stderr and "m_3-6" in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
        listed = cli(["sessions", "list", "--db", str(db)], workspace)
        assert "fork of" not in listed.stdout

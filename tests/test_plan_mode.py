"""Plan mode and the permission modes (issue 44 item 5, issue 43 Missing 2): plan mode refuses
write_file, edit_file and bash without asking anyone until the user approves the plan by
switching mode; accept-edits mode runs file edits unasked but still asks for commands."""

from __future__ import annotations

import json
import typing

from agent_tui.agent import events as ev
from agent_tui.compose.factory import build_services
from agent_tui.policy.permission_modes import DECLARED, MODES, PermissionMode, next_mode, parse_mode
from agent_tui.tools.approval_request import ApprovalDecision
from testkit.fake_openai import FakeOpenAI, Reply
from tests.support.agent_fixtures import collect, make_config, of_type, run_agent_tui, server_flags

CHANGES = [
    ("write_file", {"path": "new.txt", "content": "hello\n"}),
    ("edit_file", {"path": "old.txt", "old_string": "one", "new_string": "two"}),
    ("bash", {"command": "touch made-by-bash"}),
]


class TestHeadless:
    def test_permission_mode_plan_refuses_changes_even_with_yes(self, tmp_path, workspace):
        """`run --permission-mode plan --yes`: the three calls come back refused as plan mode,
        nothing on disk changes, and the model's request carries the plan-mode note."""
        (workspace / "old.txt").write_text("one\n")
        with FakeOpenAI() as srv:
            srv.enqueue(Reply(tool_calls=CHANGES), Reply(text="Plan: 1. write new.txt 2. edit old.txt"))
            out = run_agent_tui(
                [
                    "run",
                    "make the changes",
                    "--permission-mode",
                    "plan",
                    "--yes",
                    "--json",
                    *server_flags(srv, tmp_path / "p.db"),
                ],
                workspace,
            )
            assert out.returncode == 0, out.stderr
            events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
            finished = [e for e in events if e["type"] == "tool_call_finished"]
            assert len(finished) == 3 and all(e["is_error"] for e in finished), finished
            results = [m for m in srv.requests[-1]["messages"] if m["role"] == "tool"]
            assert all(m["content"].startswith("Plan mode:") for m in results), results
            assert "[Plan mode" in json.dumps(srv.requests[0])
            assert not (workspace / "new.txt").exists() and not (workspace / "made-by-bash").exists()
            assert (workspace / "old.txt").read_text() == "one\n"

    def test_a_bad_mode_is_named(self, tmp_path, workspace):
        with FakeOpenAI() as srv:
            out = run_agent_tui(
                ["run", "hi", "--permission-mode", "yolo", *server_flags(srv, tmp_path / "b.db")], workspace
            )
            assert out.returncode == 2 and "--permission-mode must be" in out.stderr


class TestModes:
    async def test_plan_asks_nobody_then_approval_lets_it_run(self, tmp_path, workspace):
        """In plan mode the approver is never called; after the user switches to accept edits
        the same write runs unasked, and a command still asks."""
        asked: list[str] = []

        async def approver(request):
            asked.append(request.tool)
            return ApprovalDecision("allow_once")

        with FakeOpenAI() as srv:
            services = await build_services(make_config(srv, tmp_path / "m.db"), workspace=workspace)
            try:
                session = await services.new_session(approver=approver)
                session.set_mode("plan")
                srv.enqueue(Reply(tool_calls=[CHANGES[0], CHANGES[2]]), Reply(text="Plan: write new.txt"))
                events = await collect(session.run_turn("do it"))
                assert asked == [] and all(f.is_error for f in of_type(events, ev.ToolCallFinished))
                session.set_mode(next_mode(session.mode))  # Shift+Tab from plan: back to default
                assert session.mode == "default"
                session.set_mode("accept_edits")
                srv.enqueue(Reply(tool_calls=[CHANGES[0], CHANGES[2]]), Reply(text="done"))
                await collect(session.run_turn("approved, go"))
                assert (workspace / "new.txt").read_text() == "hello\n"
                assert asked == ["bash"]
                assert "[Plan mode" not in json.dumps(srv.requests[-1])
            finally:
                await services.close()

    async def test_auto_sandboxed_is_one_sessions_and_runs_only_sandboxed_commands_unasked(
        self, bwrap, tmp_path, workspace
    ):
        """Two sessions of one process (the same sandbox): the one in auto_sandboxed runs a
        sandboxed command unasked but still asks for a write; the other, in default, asks for both."""
        asked: list[tuple[str, str]] = []

        def approver(who: str):
            async def answer(request):
                asked.append((who, request.tool))
                return ApprovalDecision("allow_once")

            return answer

        with FakeOpenAI() as srv:
            config = make_config(srv, tmp_path / "a.db", sandbox={"mode": "workspace-write"})
            services = await build_services(config, workspace=workspace)
            try:
                auto = await services.new_session(approver=approver("auto"))
                other = await services.new_session(approver=approver("other"))
                auto.set_mode("auto_sandboxed")
                for session in (auto, other):
                    srv.enqueue(Reply(tool_calls=[CHANGES[2], CHANGES[0]]), Reply(text="done"))
                    await collect(session.run_turn("go"))
                assert asked == [("auto", "write_file"), ("other", "bash"), ("other", "write_file")]
                assert parse_mode("auto-sandboxed") == "auto_sandboxed"  # `run --permission-mode`
            finally:
                await services.close()

    def test_shift_tab_cycles_default_accept_edits_plan(self):
        assert MODES == ("default", "accept_edits", "plan")
        assert [next_mode(m) for m in MODES] == ["accept_edits", "plan", "default"]


class TestOneDeclaration:
    def test_every_mode_is_declared_once_with_what_each_front_end_shows(self):
        """A mode added to `PermissionMode` without a declaration fails here: the TUI's label,
        the editor's title, description and id, and the CLI's names all come from it."""
        names = [mode.name for mode in DECLARED]
        assert sorted(names) == sorted(typing.get_args(PermissionMode)) and len(set(names)) == len(names)
        assert len({mode.editor_id for mode in DECLARED}) == len(DECLARED)
        for mode in DECLARED:
            assert mode.label and mode.title and mode.description and mode.cli_names
            assert parse_mode(mode.cli_names[0]) == mode.name


class TestModeIsKept:
    async def test_a_resumed_session_keeps_its_mode_and_plan_note(self, tmp_path, workspace):
        """The mode is stored beside the conversation: resumed, the session is still in plan
        mode, refuses a write and sends the plan note."""
        with FakeOpenAI() as srv:
            config = make_config(srv, tmp_path / "k.db")
            services = await build_services(config, workspace=workspace)
            try:
                session = await services.new_session(yes=True)
                session.set_mode("plan")
                await session.side.save()
                sid = session.session_id
                await services.store.leases.release_all()
            finally:
                await services.close()
            services = await build_services(config, workspace=workspace)
            try:
                resumed = await services.resume_session(sid, yes=True)
                assert resumed.mode == "plan"
                srv.enqueue(Reply(tool_calls=[CHANGES[0]]), Reply(text="Plan: write new.txt"))
                await collect(resumed.run_turn("go"))
                assert not (workspace / "new.txt").exists()
                assert "[Plan mode" in json.dumps(srv.requests[-1])
            finally:
                await services.close()

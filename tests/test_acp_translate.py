"""The event → ACP update translation: every turn event is handled, and the mapping's details."""

from __future__ import annotations

import logging

from agent_tui.agent import events as ev
from agent_tui.base.messages import TokenUsage, ToolCall
from agent_tui.compose.factory import build_services
from agent_tui.context.compaction.result import CompactResult
from agent_tui.context.side_state import Pin, TodoItem
from agent_tui.frontends.acp.permission import decision_for, options_for
from agent_tui.frontends.acp.translate import TurnUpdates
from agent_tui.tools.permissions import ApprovalRequest
from tests.support.agent_fixtures import make_config


async def translator(server, tmp_path, workspace):
    services = await build_services(
        make_config(server, tmp_path / "t.db"), workspace=workspace, start_mcp=False
    )
    session = await services.new_session()
    return services, TurnUpdates(session)


def samples(budget) -> list[ev.AgentEvent]:
    call = ToolCall("c1", "write_file", '{"path": "a.txt", "content": "new"}')
    result = CompactResult(900, 300, 12, 4, ("tool_clearing",), 0.1, None, True, "", True)
    return [
        ev.TurnStarted("s_x", "hi"),
        ev.BudgetMeasured(budget),
        ev.StepStarted(1),
        ev.TextDelta("hello"),
        ev.ReasoningDelta("thinking"),
        ev.ReasoningFinished(3, 0.1),
        ev.ToolCallStarted(call),
        ev.ToolCallFinished(call, None, False, "wrote 3 bytes", "wrote a.txt", 0.01, "ok"),
        ev.ToolOutputDelta(call.id, "partial output\n"),
        ev.UsageReported(TokenUsage(input=10, output=2), "openai/fake-model"),
        ev.Notice("a notice"),
        ev.ErrorEvent("boom", "provider"),
        ev.Retrying(2, 3, 1.0, "provider", "HTTP 500"),
        ev.Blocked(budget),
        ev.CompactionStarted("forced", 900),
        ev.CompactionProgress("tool_clearing"),
        ev.CompactionFinished(result),
        ev.TurnFinished("hello", stop_reason="max_steps"),
        ev.HookRan("PreToolUse", "no-rm.sh", 2, 0.1, "blocked", "rm is not allowed"),
        ev.SubagentEvent("s_child", "s_x", "c9", "find the parser", ev.TextDelta("child text")),
        ev.SideStateChanged(
            (TodoItem("Run the tests", "in_progress", "Running the tests"),),
            (Pin("p1", "keep the step numbers", "user"),),
            2000,
        ),
        ev.SubagentFinished(
            "s_child",
            "s_x",
            "c9",
            "find the parser",
            "completed",
            None,
            "ctx://p/s_child/messages:1-3",
            None,
            TokenUsage(input=5, output=1),
            None,
            0.5,
        ),
    ]


class TestTranslate:
    async def test_every_turn_event_type_has_a_translation(self, server, tmp_path, workspace, caplog):
        """Each member of the closed event set goes through a branch of its own (none falls to
        the "no ACP update" fallback), so a new event type cannot be silently dropped."""
        services, updates = await translator(server, tmp_path, workspace)
        try:
            events = samples(updates.session.measure())
            assert {type(e) for e in events} == set(ev.TURN_EVENT_TYPES)
            (workspace / "a.txt").write_text("old")
            with caplog.at_level(logging.WARNING, logger="agent_tui.frontends.acp"):
                sent = [u for e in events for u in updates.updates(e)]
            assert "no ACP update" not in caplog.text
            kinds = [u.session_update for u in sent]
            assert {"agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update"} <= set(
                kinds
            )
            assert updates.stop_reason == "max_turn_requests"
            start = next(u for u in sent if u.session_update == "tool_call" and u.tool_call_id == "c1")
            assert start.kind == "edit" and start.locations[0].path.endswith("a.txt")
        finally:
            await services.close()

    async def test_usage_update_is_not_repeated_when_nothing_changed(self, server, tmp_path, workspace):
        """Two measurements of an unchanged session send one usage_update; forcing sends again."""
        services, updates = await translator(server, tmp_path, workspace)
        try:
            budget = updates.session.measure()
            first = updates.usage(budget)
            assert first and first[0].used == budget.used and first[0].size == budget.effective_window
            assert updates.usage(budget) == []
            assert updates.usage(budget, force=True)
        finally:
            await services.close()


class TestPermissionChoices:
    def test_once_only_requests_offer_allow_once_and_deny(self, tmp_path):
        """An unsandboxed rerun (once_only) offers two choices; a plain command all four, and
        "allow for this session" carries the suggested prefix."""
        rerun = ApprovalRequest(
            "bash", {"command": "make", "unsandboxed": True}, "make", None, once_only=True
        )
        assert [o.option_id for o in options_for(rerun, tmp_path)] == ["allow_once", "deny"]
        plain = ApprovalRequest("bash", {"command": "git status -s"}, "git status -s", "git status")
        assert len(options_for(plain, tmp_path)) == 4
        assert decision_for("allow_session", plain).prefix == "git status"
        assert decision_for("bogus", plain).action == "deny"
        assert decision_for(None, plain).action == "deny"


class TestPromptContent:
    def test_links_become_attachments_embedded_text_is_quoted_images_go_apart(self, tmp_path):
        """A linked workspace file becomes `@path` (our attachment), a file elsewhere its path,
        an embedded buffer is quoted with its uri, and an image is left to frontends/acp/images.py."""
        from acp import schema as s

        from agent_tui.frontends.acp.live import prompt_text

        (tmp_path / "src").mkdir()
        blocks = [
            s.TextContentBlock(type="text", text="look at"),
            s.ResourceContentBlock(type="resource_link", name="a", uri=(tmp_path / "src" / "a.py").as_uri()),
            s.ResourceContentBlock(type="resource_link", name="b", uri="file:///etc/hosts"),
            s.EmbeddedResourceContentBlock(
                type="resource",
                resource=s.TextResourceContents(uri="file:///x/draft.md", text="unsaved words"),
            ),
            s.ImageContentBlock(type="image", data="AAAA", mime_type="image/png"),
        ]
        text, skipped = prompt_text(blocks, tmp_path)
        assert text.startswith("look at @src/a.py /etc/hosts")
        assert "file:///x/draft.md:\n```\nunsaved words\n```" in text
        assert skipped == []
        from agent_tui.frontends.acp.images import editor_images

        pictures, bad = editor_images(blocks)
        assert [(p.name, p.media_type, p.decoded()) for p in pictures] == [
            ("image-1.png", "image/png", b"\0\0\0")
        ]
        assert bad == []

"""A tool declares its capabilities once, in its spec; the editor protocol, hooks, `/undo`, the
approval preview, compaction's labels and the prompt all read that declaration.

The throwaway tool here is one class plus the line that registers it: nothing else is edited, and
every consumer treats it by what it declares."""

from __future__ import annotations

import typing

import pytest

from agent_tui.agent.base_prompt import base_prompt
from agent_tui.agent.subagents import for_session
from agent_tui.agent.undo import undo
from agent_tui.base.messages import Message, ToolCall
from agent_tui.base.tool_decl import ToolKind
from agent_tui.compose.factory import build_services
from agent_tui.context.compaction.calls import condensed_line, tool_kind
from agent_tui.frontends.acp.translate import kind_of, title_of
from agent_tui.hooks.spec import HookSpec
from agent_tui.tools.approval_preview import build_preview, describe_call
from agent_tui.tools.context_tools import context_tools
from agent_tui.tools.registry import ToolRegistry, builtin_tools
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config
from tests.support.builtin_tools import every_builtin
from tests.support.throwaway_tools import PeekTool, StampTool, Undeclared

KINDS = set(typing.get_args(ToolKind))


class TestEveryBuiltinDeclares:
    @pytest.mark.parametrize("tool", every_builtin(), ids=lambda t: t.spec.name)
    def test_the_tool_declares_its_capabilities(self, tool):
        """A built-in without a declaration (or with an unknown kind) fails here, by name."""
        declared = tool.spec.capabilities
        assert declared is not None, f"{tool.spec.name} declares no capabilities"
        assert declared.kind in KINDS

    @pytest.mark.parametrize("tool", every_builtin(), ids=lambda t: t.spec.name)
    def test_path_arguments_are_declared(self, tool):
        """An argument called like a path is declared as one (hooks and the editor rely on it)."""
        properties = tool.spec.parameters.get("properties") or {}
        named = {name for name in properties if "path" in name}
        assert named <= set(tool.spec.capabilities.path_args)

    @pytest.mark.parametrize("tool", every_builtin(), ids=lambda t: t.spec.name)
    def test_a_tool_that_changes_files_says_how_to_preview_and_undo_it(self, tool):
        """A checkpointed tool has a path argument and a diff preview; a mutating file tool is
        checkpointed."""
        declared = tool.spec.capabilities
        if declared.checkpointed:
            assert tool.spec.mutates and declared.path_args and declared.preview in ("write", "edit")
        if tool.spec.mutates and declared.kind == "edit":
            assert declared.checkpointed


class TestANewToolFromItsDeclaration:
    def test_editor_kind_title_and_hook_names(self):
        """The editor's card kind and title, and a `.claude/` hook's matcher and input, follow the
        declaration; an undeclared tool is `other` and keeps its own name."""
        ToolRegistry([StampTool()])
        call = ToolCall("c1", "stamp_file", '{"path": "notes.txt", "content": "x"}')
        assert kind_of("stamp_file") == "edit" and title_of(call) == "stamp_file notes.txt"
        hook = HookSpec("PreToolUse", "check.sh", matcher="Stamp", claude=True)
        assert hook.matches("stamp_file") and hook.tool_name("stamp_file") == "Stamp"
        assert hook.tool_input("stamp_file", {"path": "notes.txt"}, "/w") == {"file_path": "/w/notes.txt"}
        assert kind_of(Undeclared.spec.name) == "other"
        assert hook.tool_input("peer__poke", {"path": "a"}, "/w") == {"path": "a"}

    def test_approval_preview_is_the_diff_it_declares(self, tmp_path):
        """The approval shows the diff a write would apply, and names the path."""
        (tmp_path / "notes.txt").write_text("old\n")
        args = {"path": "notes.txt", "content": "new\n"}
        preview = build_preview(StampTool.spec.name, args, tmp_path)
        assert "-old" in preview and "+new" in preview
        assert describe_call("stamp_file", args) == "notes.txt"

    def test_compaction_labels_it_as_an_edit(self):
        """A condensed old result says `Edited notes.txt`, from the declared kind."""
        call = ToolCall("c1", "stamp_file", '{"path": "notes.txt", "content": "x"}')
        result = Message(role="tool", content="stamped", tool_call_id="c1", name="stamp_file")
        assert tool_kind("stamp_file") == "edit"
        assert condensed_line(call, result).startswith("Edited notes.txt → 1 line")

    def test_the_prompt_lists_it_with_the_file_tools(self, tmp_path):
        """The base prompt's tools paragraph names it among the tools that change files."""
        specs = [tool.spec for tool in [*builtin_tools(), StampTool()]]
        text = " ".join(base_prompt(tmp_path, specs).split())
        assert "write_file, edit_file and stamp_file change files" in text
        assert "stamp_file replaces a whole file" in text

    async def test_undo_puts_back_what_it_changed(self, server, workspace, tmp_path):
        """`/undo` restores a file the new tool changed: its declaration checkpointed it."""
        (workspace / "notes.txt").write_text("mine\n")
        services = await build_services(make_config(server, tmp_path / "u.db"), workspace=workspace)
        services.extra_tools.append(StampTool())  # the one registry line
        try:
            server.enqueue(
                Reply(tool_calls=[("stamp_file", {"path": "notes.txt", "content": "stamped\n"})]),
                Reply(text="done"),
            )
            session = await services.new_session(yes=True)
            await collect(session.run_turn("stamp it"))
            assert (workspace / "notes.txt").read_text() == "stamped\n"
            report = await undo(services.store, session.session_id)
            assert report.restored == [str(workspace / "notes.txt")]
            assert (workspace / "notes.txt").read_text() == "mine\n"
        finally:
            await services.close()

    async def test_a_narrowed_sub_agent_keeps_its_declared_lookups(self, server, workspace, tmp_path):
        """A definition's `tools: [read_file]` keeps read_file plus every tool declared to only look
        up the session's own state (the new one included); everything else goes."""
        services = await build_services(make_config(server, tmp_path / "n.db"), workspace=workspace)
        try:
            registry = ToolRegistry([*builtin_tools(), *context_tools(), PeekTool(), StampTool()])
            for_session(services, services.config, registry, depth=5, tool_names=("read_file",))
            assert set(registry.names()) == {
                "read_file",
                "read_result",
                "grep_result",
                "recall",
                "peek_outputs",
            }
        finally:
            await services.close()

    async def test_recall_skips_the_calls_declared_as_lookups(self, server, workspace, tmp_path):
        """The store the composition root opens leaves out of recall's index exactly the calls of
        tools declared to look up the session: the built-in `recall` and the throwaway
        `peek_outputs`, which no table names; any other call's arguments stay searchable."""
        config = make_config(server, tmp_path / "r.db")
        services = await build_services(config, workspace=workspace, start_mcp=False)
        try:
            store = services.store
            info = await store.sessions.create(workspace, "m")
            calls = [
                ToolCall("c1", "recall", '{"query": "zebra"}'),
                ToolCall("c2", "peek_outputs", '{"query": "walrus"}'),
                ToolCall("c3", "bash", '{"command": "echo okapi"}'),
            ]
            asked = Message(role="assistant", content="", tool_calls=calls)
            await store.sessions.append(info.id, [Message(role="user", content="look"), asked])
            assert await store.transcript.recall("zebra") == []
            assert await store.transcript.recall("walrus") == []
            assert [hit.seq for hit in await store.transcript.recall("okapi")] == [2]
        finally:
            await services.close()

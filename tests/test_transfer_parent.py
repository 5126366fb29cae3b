"""Export and import keep a sub-agent session's parent (`parent_session_id`), so an imported tree
lists and resumes as it did at home — over real SQLite files."""

from __future__ import annotations

import json

from agent_tui.base.messages import Message
from agent_tui.frontends.session_tree import tree_order
from agent_tui.store import open_store


def chat(*texts: str) -> list[Message]:
    return [Message(role="user" if i % 2 == 0 else "assistant", content=t) for i, t in enumerate(texts)]


class TestParentRoundTrip:
    async def test_a_child_session_keeps_its_parent_through_export_and_import(self, tmp_path):
        """A parent and its sub-agent's session exported and imported into another database: the
        child names the same parent, is listed among its children, and the tree shows it under
        the parent."""
        async with await open_store(tmp_path / "a.db") as store:
            parent = await store.sessions.create("/p", "m", "parent")
            await store.sessions.append(parent.id, chat("delegate it", "done"))
            child = await store.sessions.create("/p", "m", "child", parent_id=parent.id)
            await store.sessions.append(child.id, chat("the sub-task", "sub-answer"))
            parent_file = await store.sessions.export(parent.id, tmp_path / "parent.json")
            child_file = await store.sessions.export(child.id, tmp_path / "child.json")
        assert json.loads(child_file.read_text())["session"]["parent_id"] == parent.id

        async with await open_store(tmp_path / "b.db") as other:
            await other.sessions.import_(parent_file)
            imported = await other.sessions.import_(child_file)
            assert imported.parent_id == parent.id
            assert [c.id for c in await other.sessions.children(parent.id)] == [child.id]
            assert await other.sessions.descendants(parent.id) == [child.id]
            tree = tree_order(await other.sessions.list())
            assert [(info.id, depth) for info, depth in tree] == [(parent.id, 0), (child.id, 1)]

    async def test_a_child_imported_without_its_parent_stands_on_its_own(self, tmp_path):
        """Imported alone, the child still names its parent and lists as a session of its own."""
        async with await open_store(tmp_path / "a.db") as store:
            parent = await store.sessions.create("/p", "m", "parent")
            child = await store.sessions.create("/p", "m", "child", parent_id=parent.id)
            await store.sessions.append(child.id, chat("the sub-task", "sub-answer"))
            child_file = await store.sessions.export(child.id, tmp_path / "child.json")
        async with await open_store(tmp_path / "b.db") as other:
            imported = await other.sessions.import_(child_file)
            assert imported.parent_id == parent.id
            assert [info.id for info, _ in tree_order(await other.sessions.list())] == [child.id]

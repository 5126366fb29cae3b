"""The closed set of turn events: every one has a TUI handler, a JSON form and a README row."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path

from agent_tui.agent import events as ev
from agent_tui.base.messages import Outcome

README = Path(__file__).resolve().parent.parent / "README.md"


def _declared_events() -> set[type]:
    return {
        cls
        for _, cls in inspect.getmembers(ev, inspect.isclass)
        if issubclass(cls, ev.AgentEvent) and cls is not ev.AgentEvent
    }


def _readme_rows() -> dict[str, str]:
    text = README.read_text()
    table = text.split("### `--json` event schema", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| (.*) \|$", table, re.M))


def _top_level_names(row: str) -> set[str]:
    """Backticked names outside parentheses and before a `:` that lists sub-fields."""
    flat = re.sub(r"\([^)]*\)", "", row)
    names: set[str] = set()
    for part in flat.split("; "):
        names |= set(re.findall(r"`(\w+)`", part.split(":", 1)[0]))
    return names


class TestEventSet:
    def test_every_event_class_is_in_the_closed_set(self):
        """A new event class that is not added to TurnEvent would reach no handler."""
        assert _declared_events() == set(ev.TURN_EVENT_TYPES)

    def test_every_event_has_a_handler_case(self):
        """The tab's dispatch names every event type (mypy's assert_never checks the same)."""
        from agent_tui.frontends.tui.tab_controller import TabController

        source = inspect.getsource(TabController.event)
        for cls in ev.TURN_EVENT_TYPES:
            assert f"case ev.{cls.__name__}():" in source, cls.__name__

    def test_every_event_serialises_with_its_type_and_fields(self):
        """to_json carries `type` and every field of each event class."""
        for cls in ev.TURN_EVENT_TYPES:
            names = {f.name for f in dataclasses.fields(cls)}
            assert cls.type != "event", cls.__name__
            assert "type" not in names, cls.__name__


class TestReadmeSchema:
    def test_the_readme_table_lists_exactly_the_emitted_types(self):
        """The README's `--json` table has one row per event type, plus the final `result`."""
        assert set(_readme_rows()) == {cls.type for cls in ev.TURN_EVENT_TYPES} | {"result"}

    def test_each_row_names_the_event_fields(self):
        """Every field an event carries is documented in its row, and no row documents a
        top-level field the event does not have."""
        rows = _readme_rows()
        for cls in ev.TURN_EVENT_TYPES:
            fields = {f.name for f in dataclasses.fields(cls)}
            row = rows[cls.type]
            for name in fields:
                assert f"`{name}`" in row, f"{cls.type}: README row lacks `{name}`"
            top_level = _top_level_names(row)
            assert top_level <= fields, f"{cls.type}: README names {top_level - fields} it never emits"

    def test_value_lists_match_the_types(self):
        """Where a row lists a field's values, the list is exactly the Literal type's members."""
        import typing

        rows = _readme_rows()
        for event, name, values in (
            ("error", "kind", ev.ErrorKind),
            ("compaction_started", "reason", ev.CompactionReason),
            ("turn_finished", "stop_reason", ev.StopReason),
            ("warning", "code", ev.NoticeCode),
            ("tool_call_finished", "outcome", Outcome),
        ):
            listed = re.search(rf"`{name}` \(([^)]*)\)", rows[event])
            assert listed is not None, f"{event}: README lists no values for `{name}`"
            assert re.findall(r"`(\w+)`", listed.group(1)) == list(typing.get_args(values)), event


def _documented_shapes(row: str) -> dict[str, set[str]]:
    """The sub-fields a row lists per top-level field: "`call`: `id`, `name`" and
    "`ref` (`id`, `byte_size`, or null)" both document the keys of an object."""
    shapes: dict[str, set[str]] = {}
    for part in row.split("; "):
        for head in re.finditer(r"`(\w+)`(:| \()", part):
            rest = part[head.end() :]
            if head.group(2) == " (":
                rest = rest.split(")", 1)[0]
            else:
                rest = re.sub(r"\([^)]*\)", "", rest)
            names = set(re.findall(r"`(\w+)`", rest))
            if names:
                shapes.setdefault(head.group(1), names)
    return shapes


class TestReadmeShapes:
    def test_nested_objects_have_the_documented_keys(self, server, workspace, tmp_path):
        """The README said `tool_call_started.call` was `id, type, function{name, arguments}`
        while `--json` printed `{"id", "name", "arguments"}`: every documented object's keys are
        checked against a real run's lines, not only the top-level names."""
        import json

        from testkit.fake_openai import Reply
        from tests.support.cli import flags, run_cli

        server.enqueue(Reply(tool_calls=[("bash", {"command": "seq 1 3000"})]), Reply(text="counted"))
        out = run_cli(["run", "count", "--yes", "--json", *flags(server, tmp_path / "j.db")], workspace)
        assert out.returncode == 0, out.stderr
        seen: dict[str, dict] = {}
        for line in out.stdout.splitlines():
            event = json.loads(line)
            seen.setdefault(event["type"], event)
        assert {"tool_call_started", "tool_call_finished", "usage", "budget", "result"} <= set(seen)
        checked = 0
        for kind, row in _readme_rows().items():
            event = seen.get(kind)
            if event is None:
                continue
            for field, documented in _documented_shapes(row).items():
                value = event.get(field)
                if isinstance(value, dict) and documented:
                    assert documented == set(value), f"{kind}.{field}: README {documented} ≠ {set(value)}"
                    checked += 1
        assert checked >= 4

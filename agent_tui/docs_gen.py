"""`config.example.toml` and the generated tables of README.md and docs/, written from the declarations.

The config keys come from their field declarations (config/schema.py), the slash commands from
the command registry (core/commands.py). `python -m agent_tui.docs_gen` (`make docs`) rewrites them;
`--check` only says which are out of step, and tests/test_docs_generated.py fails the same way, so
a hand edit of a generated part cannot drift. The README's prose around each table stays
hand-written: only the lines between a `<!-- NAME: generated … -->` marker and `<!-- /NAME -->`
are replaced.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.config.checks import declared
from agent_tui.config.coerce import HINTS, SECTION_TYPES, describe_type
from agent_tui.config.spec import Spec
from agent_tui.core import commands as slash
from agent_tui.core.protocol_schema import as_text, events_schema, operations_schema

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 100

EXAMPLE_HEADER = """\
agent-tui configuration: every key with its default. Generated from agent_tui/config/schema.py
by `make docs`; edit the declarations there, not this file.
Read in order (later wins): the user file (`agent-tui config path` prints it), then
`.agent-tui.toml` in the working directory, then its git-ignored `.agent-tui.local.toml` (where
"Always allow" writes rules), then AGENT_TUI_MODEL, then command-line flags. `agent-tui config
show` prints the merged result and where each value came from.
A project's `.agent-tui.toml` applies in full only once you trust its folder (`agent-tui trust
add`, or `--trust` for one run). Before that only harmless keys apply: [agent], [tool_output],
[ui], [loop], [model] context_window / max_output_tokens, [tools] bash_timeout, [mcp]
startup_timeout and [compaction] (not its model). Keys marked "user config only" are never taken
from a project file. See docs/trust-and-sandbox.md."""


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{}" if not value else json.dumps(value)
    return json.dumps(value, ensure_ascii=False)


def _comment(text: str) -> list[str]:
    return [f"# {line}".rstrip() for line in textwrap.wrap(text, WIDTH - 2, break_on_hyphens=False)]


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory()  # type: ignore[operator]  # a field has one or the other


def example_toml() -> str:
    """The whole of `config.example.toml`."""
    lines = [*(f"# {line}".rstrip() for line in EXAMPLE_HEADER.splitlines())]
    section = ""
    previous: Spec | None = None
    for key, cls, f, spec in declared():
        name = key.split(".")[0]
        if name != section:
            if section:
                lines += _tail(SECTION_TYPES[section])
            section = name
            lines += ["", f"[{name}]"]
            intro = getattr(cls, "INTRO", "")
            lines += [*_comment(intro), "#"] if intro else []
        if spec is not previous:
            lines += _comment(" ".join(part for part in (spec.help, spec.doc) if part))
        previous = spec
        value = _default(f)
        if value is None:
            lines.append(f"# {f.name} = {toml_value(spec.example)}")
        elif spec.commented:
            lines.append(f"# {f.name} = {toml_value(value)}")
        else:
            lines.append(f"{f.name} = {toml_value(value)}")
    lines += _tail(SECTION_TYPES[section])
    return "\n".join(lines) + "\n"


def _tail(cls: type) -> list[str]:
    tail = getattr(cls, "EXAMPLE_TAIL", "")
    return [f"# {line}" for line in tail.splitlines()] if tail else []


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _allowed(key: str, spec: Spec) -> str:
    if spec.range is not None:
        return spec.range.describe()
    if spec.choices:
        return ", ".join(f"`{choice}`" for choice in spec.choices)
    section, name = key.split(".")
    return describe_type(HINTS[section][name])


def config_table() -> list[str]:
    """The README's config-key table: one row per declared key."""
    rows = ["| key | default | allowed | what it does |", "|---|---|---|---|"]
    for key, _cls, f, spec in declared():
        value = _default(f)
        shown = "unset" if value is None else f"`{toml_value(value)}`"
        rows.append(f"| `{key}` | {_cell(shown)} | {_cell(_allowed(key, spec))} | {_cell(spec.help)} |")
    return rows


def command_table() -> list[str]:

    return slash.readme_table()


BLOCKS: dict[str, tuple[str, Callable[[], list[str]]]] = {
    "config-keys": ("docs/configuration.md", config_table),
    "commands": ("README.md", command_table),
}
"""Marker name → (the Markdown file holding it, the lines between `<!-- NAME: … -->` and
`<!-- /NAME -->`)."""


class MarkerError(Exception):
    """A generated block's markers are missing from the Markdown file that should hold them."""


def fill_blocks(text: str, file: str) -> str:
    """`text` (the Markdown file `file`) with each of its generated blocks replaced by what the
    declarations say now (the marker lines and their indentation kept)."""
    for name, (home, render) in BLOCKS.items():
        if home != file:
            continue
        opener = text.find(f"<!-- {name}:")
        closer = text.find(f"<!-- /{name} -->")
        if opener < 0 or closer < opener:
            raise MarkerError(f"{file} has no <!-- {name}: … --> … <!-- /{name} --> block")
        body_start = text.index("\n", opener) + 1
        indent = text[text.rfind("\n", 0, closer) + 1 : closer]
        body = "".join(f"{indent}{line}\n" for line in render())
        text = text[:body_start] + body + text[text.rfind("\n", 0, closer) + 1 :]
    return text


def generated(root: Path | None = None) -> dict[Path, str]:
    """Each generated file with the text it should hold."""
    root = ROOT if root is None else root

    protocol = root / "docs" / "protocol"
    return {
        root / "config.example.toml": example_toml(),
        **{
            root / file: fill_blocks((root / file).read_text(), file)
            for file in dict.fromkeys(f for f, _ in BLOCKS.values())
        },
        protocol / "operations.schema.json": as_text(operations_schema()),
        protocol / "events.schema.json": as_text(events_schema()),
    }


def stale(root: Path | None = None) -> list[str]:
    """The generated files whose committed text differs from what would be generated."""
    root = ROOT if root is None else root
    return [
        path.relative_to(root).as_posix()
        for path, text in generated(root).items()
        if not path.is_file() or path.read_text() != text
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        out_of_step = stale()
        if out_of_step:
            print(f"out of step with the declarations: {', '.join(out_of_step)}; run `make docs`")
            return 1
        return 0
    for path, text in generated().items():
        if not path.is_file() or path.read_text() != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

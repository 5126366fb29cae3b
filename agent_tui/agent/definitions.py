"""Sub-agent definitions: markdown files whose front matter names an agent and whose body is its
system prompt, so a team can keep "reviewer" or "test-runner" next to its code.

Read from, first found wins per name: the project's `.agent-tui/agents/` and `.claude/agents/`
(a Claude Code user's agents work as they are), then `agents/` in the user config dir and
`~/.claude/agents/`. Project files are project settings: like a project's `.agent-tui.toml`, they
load only in a trusted folder (config.py lists them as what trusting would enable). A malformed
file is one notice naming it, never a crash; the other files still load.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from agent_tui.base import tool_decl
from agent_tui.base.frontmatter import FrontMatterError, parse
from agent_tui.policy import project_layout
from agent_tui.policy.extension_files import walk
from agent_tui.runtime import paths

log = logging.getLogger(__name__)

PROJECT_DIRS = tuple(reversed(project_layout.extension_dirs("agents")))
"""Where a project keeps its agents, relative to its folder (the first found wins)."""

MAX_TURNS = 1000


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str
    """The body: the agent's system prompt."""
    tools: tuple[str, ...] | None = None
    """Tool names the agent may use (a subset of the parent's), as the file wrote them; None = the
    parent's."""
    model: str | None = None
    """Another model for this agent (`inherit` or absent: the parent's)."""
    max_turns: int | None = None
    """Model calls the agent may make in its turn; None = `[agent] max_steps`."""
    source: Path | None = None

    def tool_names(self) -> tuple[str, ...] | None:
        """`tools` as our names: a Claude Code name (`Read`, `Bash`) is the tool that declares it
        (tool_decl.py), so a Claude Code agent file narrows the same way; resolved when the agent
        starts, once the tools it names are built."""
        if self.tools is None:
            return None
        ours = (tool_decl.from_claude_name(word) if word[:1].isupper() else None for word in self.tools)
        return tuple(dict.fromkeys(name or word for name, word in zip(ours, self.tools, strict=True)))


@dataclass(frozen=True)
class Definitions:
    agents: dict[str, AgentDefinition]
    notices: tuple[str, ...] = ()
    """One line per file that could not be used."""

    def get(self, name: str) -> AgentDefinition | None:
        return self.agents.get(name) or self.agents.get(name.strip().lower())


def project_files(folder: Path) -> list[Path]:
    """The project's definition files (what an untrusted folder does not load)."""

    found: list[Path] = []
    for sub in PROJECT_DIRS:
        directory = folder / sub
        # The trust hash's own walker: links are followed only inside the project.
        found.extend(p for p in walk(directory, folder) if p.parent == directory and p.suffix == ".md")
    return found


def user_dirs() -> list[Path]:
    return [paths.config_dir() / "agents", Path.home() / project_layout.CLAUDE_DIR / "agents"]


def _tools(value: object, path: Path) -> tuple[str, ...] | None:
    if value is None or value == "" or value == []:
        return None
    items = value if isinstance(value, list) else str(value).split(",")
    names: list[str] = []
    for item in items:
        word = str(item).strip()
        if not word:
            continue
        names.append(word)
    if not names:
        return None
    return tuple(dict.fromkeys(names))


def read_definition(path: Path) -> AgentDefinition:
    """One file as a definition; ValueError (phrased for the user) when it cannot be one."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from None
    try:
        doc = parse(text)
    except FrontMatterError as exc:
        raise ValueError(str(exc)) from None
    meta = doc.meta
    name = str(meta.get("name") or path.stem).strip()
    if not name or any(c.isspace() for c in name):
        raise ValueError(f"name must be one word, got {name!r}")
    description = str(meta.get("description") or "").strip()
    if not description:
        raise ValueError("front matter needs a `description:` (the parent chooses agents by it)")
    turns = meta.get("max_turns")
    if turns is not None and (
        isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS
    ):
        raise ValueError(f"max_turns must be a whole number from 1 to {MAX_TURNS}, got {turns!r}")
    model = meta.get("model")
    model_name = str(model).strip() if model not in (None, "", "inherit") else None
    if not doc.body:
        raise ValueError("the body (the agent's system prompt) is empty")
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        prompt=doc.body,
        tools=_tools(meta.get("tools"), path),
        model=model_name,
        max_turns=turns,
        source=path,
    )


def load_definitions(workspace: Path, *, include_project: bool) -> Definitions:
    """Every definition this session may use; the project's only when `include_project`."""
    files: list[Path] = project_files(workspace) if include_project else []
    for directory in user_dirs():
        try:
            if directory.is_dir():
                files.extend(sorted(p for p in directory.glob("*.md") if p.is_file()))
        except OSError:
            continue
    agents: dict[str, AgentDefinition] = {}
    notices: list[str] = []
    for path in files:
        try:
            definition = read_definition(path)
        except ValueError as exc:
            notices.append(f"agent definition {paths.shown(path)} not loaded: {exc}")
            continue
        agents.setdefault(definition.name, definition)
    return Definitions(agents, tuple(notices))


def untrusted_items(folder: Path) -> tuple[str, ...]:
    """What trusting `folder` would load, as the trust dialog lists it."""
    out = []
    for path in project_files(folder):
        try:
            shown = str(path.relative_to(folder))
        except ValueError:
            shown = str(path)
        out.append(f"sub-agent {shown} (its prompt and tools)")
    return tuple(out)

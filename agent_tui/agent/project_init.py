"""`/init`: an AGENTS.md skeleton for the workspace, which the prompt builder then loads.

It fills in what can be read off the tree (languages, build and test commands, top-level
layout) and leaves headed blanks for what only the user knows. An existing file is never
overwritten.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.context.prompt import find_rules_file

# (marker file, language, how to test, how to build or run)
MARKERS = (
    ("pyproject.toml", "Python", "python -m pytest", "pip install -e ."),
    ("setup.py", "Python", "python -m pytest", "pip install -e ."),
    ("package.json", "JavaScript/TypeScript", "npm test", "npm install"),
    ("Cargo.toml", "Rust", "cargo test", "cargo build"),
    ("go.mod", "Go", "go test ./...", "go build ./..."),
    ("pom.xml", "Java (Maven)", "mvn test", "mvn package"),
    ("Gemfile", "Ruby", "bundle exec rake test", "bundle install"),
)
SKIP = {".git", ".venv", "venv", "node_modules", "__pycache__", "target", "dist", "build"}


class AlreadyExists(Exception):
    """The workspace already has a rules file."""


def skeleton(workspace: Path) -> str:
    found = [m for m in MARKERS if (workspace / m[0]).is_file()]
    langs = sorted({m[1] for m in found}) or ["(fill in)"]
    tests = [m[2] for m in found] or ["(how to run the tests)"]
    builds = [m[3] for m in found] or ["(how to build or install)"]
    if (workspace / "Makefile").is_file():
        tests.insert(0, "make test")
    dirs = sorted(
        p.name + "/"
        for p in workspace.iterdir()
        if p.is_dir() and p.name not in SKIP and not p.name.startswith(".")
    )
    layout = "\n".join(f"- `{d}` — " for d in dirs[:20]) or "- (describe the layout)"
    return f"""# AGENTS.md — what an agent should know about {workspace.name}

## Project
{workspace.name}: (one paragraph: what it is and who uses it)

Languages: {", ".join(langs)}

## Commands
- Test: `{tests[0]}`
- Build / install: `{builds[0]}`

## Layout
{layout}

## Conventions
- (code style, naming, how errors are handled)
- (what must never be done: e.g. edit generated files, commit secrets)

## Notes for the agent
- Run the tests after a change and before saying it is done.
"""


def write_agents_md(workspace: Path) -> Path:
    """Write AGENTS.md; raises AlreadyExists naming the rules file already there."""
    existing = find_rules_file(workspace)
    if existing is not None:
        raise AlreadyExists(f"{existing.name} already exists; edit it instead")
    path = workspace / "AGENTS.md"
    path.write_text(skeleton(workspace), encoding="utf-8")
    return path

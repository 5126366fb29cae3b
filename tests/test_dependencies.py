"""The dependency pins agree: pyproject's ranges, constraints.txt and what is installed.

`make` installs with `pip -c constraints.txt`, so what CI tests is what a user gets from the two
README commands. These tests catch a constraints file that drifted from pyproject (a range
changed, the file not regenerated) and a venv whose UI framework moved past what was tested.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def pins() -> dict[str, str]:
    pinned = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, ver = line.partition("==")
            assert ver, f"constraints.txt: {line!r} is not an exact pin"
            pinned[canonicalize_name(name)] = ver
    return pinned


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(r) for r in project["dependencies"]]
    for extra in ("dev", "llm-test"):
        found += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return found


class TestPins:
    def test_every_dependency_is_pinned_inside_its_range(self):
        """Each dependency in pyproject.toml has a pin in constraints.txt its range allows."""
        pinned = pins()
        wrong = []
        for req in requirements():
            ver = pinned.get(canonicalize_name(req.name))
            if ver is None or not req.specifier.contains(ver, prereleases=True):
                wrong.append(f"{req} (constraints.txt: {ver})")
        assert not wrong, f"run `make constraints` after `make test` passes: {wrong}"

    def test_textual_is_the_tested_version(self):
        """The installed Textual is the one constraints.txt records (the private hooks were
        checked on it); an upgrade must go through `make test` and `make constraints`."""
        assert version("textual") == pins()["textual"]

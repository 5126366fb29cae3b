"""What a rule's specifier means for a file tool (a path glob) and for web_fetch (a domain).

A path rule is written the way Claude Code writes its `Read(…)` / `Edit(…)` rules, in either
syntax: `//abs/path` is absolute, `~/x` is under the home folder, `/x` and `./x` and `x` are
relative to the workspace; `*` stays inside one folder, `**` crosses folders, and a pattern
without a `/` matches a name at any depth (gitignore's habit, so `.env` covers every `.env`).
A rule naming a folder covers everything inside it. A domain rule is a host name, or
`*.example.com` for its subdomains. Plain functions: no layer of the program is imported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

_HOST = re.compile(r"(\*\.)?[A-Za-z0-9.\-]+")


def domain_problem(domain: str) -> str | None:
    """Why `domain` is not a host name a rule can match; None when it is fine."""
    if not domain or not _HOST.fullmatch(domain):
        return f'{domain!r} is not a domain: write it as "example.com" or "*.example.com"'
    return None


def host_of(url: str) -> str:
    try:
        return (urlsplit(url.strip()).hostname or "").lower().rstrip(".")
    except ValueError:
        return ""


def domain_matches(domain: str, url: str) -> bool:
    """Whether `url`'s host is `domain` (`*.d` also covers d's subdomains, not d itself)."""
    host, domain = host_of(url), domain.lower().rstrip(".")
    if not host:
        return False
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _anchored(pattern: str, workspace: Path) -> str:
    """The pattern as an absolute glob (or `**/name` under the workspace for a bare name)."""
    pattern = pattern.strip().rstrip("/") or "/"
    if pattern.startswith("//"):
        return "/" + pattern.lstrip("/")
    if pattern.startswith("~/") or pattern == "~":
        return str(Path.home()) + pattern[1:]
    base = os.path.realpath(workspace)
    if pattern.startswith("./"):
        pattern = pattern[2:]
    elif pattern.startswith("/"):
        pattern = pattern.lstrip("/")
    elif "/" not in pattern:
        pattern = "**/" + pattern
    return f"{base.rstrip('/')}/{pattern}" if pattern else base


def path_matches(pattern: str, args: Mapping[str, Any], workspace: Path | None) -> bool:
    """Whether the call's `path` (the workspace itself when it names none) is, or lies inside,
    what `pattern` names."""
    workspace = workspace or Path.cwd()
    raw = args.get("path")
    target = raw if isinstance(raw, str) and raw.strip() else "."
    resolved = Path(os.path.realpath(Path(workspace) / Path(target).expanduser()))
    regex = _glob_regex(_anchored(pattern, Path(workspace)))
    return any(regex.fullmatch(str(candidate)) for candidate in (resolved, *resolved.parents))

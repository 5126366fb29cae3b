"""The environment bash and MCP servers get: the user's, minus what looks like a secret.

A command the model runs (or a repository's script it calls) should not find `OPENAI_API_KEY` or
`GITHUB_TOKEN` waiting for it. Variables whose names contain KEY, SECRET, TOKEN, PASSWORD,
PASSWD or CREDENTIAL, whose names have a word such as AUTH, DSN, PAT or COOKIE, or whose value
is a URL with a password in it (`postgres://app:pw@db`, a proxy with credentials) are withheld
unless `[tools] env_passthrough` names them. The first bash call of a session says how many were
withheld and how to pass them, once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

SECRET_PARTS = ("KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL")
SECRET_WORDS = frozenset(
    {"AUTH", "DSN", "PAT", "COOKIE", "COOKIES", "PASS", "PASSPHRASE", "WEBHOOK", "PRIVATE"}
)
"""Whole words of a name (`NPM_CONFIG__AUTH`, `SENTRY_DSN`, `GITHUB_PAT`; not `GIT_AUTHOR_NAME`)."""
LOCATION_SUFFIXES = ("_DIR", "_PATH", "_HOME", "_SOCK", "_SOCKET")
"""Names of places, not secrets (`TIKTOKEN_CACHE_DIR`, `KEYRING_PATH`, `SSH_AUTH_SOCK`): handed on."""
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:[^/\s@]+@")


def looks_secret(name: str, value: str = "") -> bool:
    upper = name.upper()
    if _URL_PASSWORD.search(value):
        return True
    if upper.endswith(LOCATION_SUFFIXES):
        return False
    words = set(re.split(r"[^A-Z0-9]+", upper))
    return any(part in upper for part in SECRET_PARTS) or not words.isdisjoint(SECRET_WORDS)


def scrubbed(
    passthrough: Iterable[str] = (), base: Mapping[str, str] | None = None
) -> tuple[dict[str, str], list[str]]:
    """(the environment to hand on, the names withheld, sorted)."""
    base = os.environ if base is None else base
    keep = set(passthrough)
    env, withheld = {}, []
    for name, value in base.items():
        if looks_secret(name, value) and name not in keep:
            withheld.append(name)
        else:
            env[name] = value
    return env, sorted(withheld)


def passed_through(passthrough: Iterable[str], base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The named variables that are set (what an MCP server gets beyond the SDK's safe few)."""
    base = os.environ if base is None else base
    return {name: base[name] for name in passthrough if name in base}


class SessionEnv:
    """One session's view: the scrubbed environment, and the one-time note about it."""

    def __init__(self, passthrough: Iterable[str] = ()) -> None:
        self.passthrough = tuple(passthrough)
        self._told = False

    def build(self) -> tuple[dict[str, str], str | None]:
        """(environment, note): the note only the first time anything was withheld."""
        env, withheld = scrubbed(self.passthrough)
        if self._told or not withheld:
            return env, None
        self._told = True
        shown = ", ".join(withheld[:6]) + (", …" if len(withheld) > 6 else "")
        example = withheld[0]
        return env, (
            f"[{len(withheld)} secret-looking environment variable(s) withheld from bash: {shown}; "
            f'pass one with [tools] env_passthrough = ["{example}"] in your config]'
        )

"""The server's bearer token: made fresh at every start, kept in a file only the user can read
(0600, beside the database), compared in constant time."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

FILE_NAME = "serve.token"


def token_file(db: Path) -> Path:
    return db.parent / FILE_NAME


def new_token(path: Path) -> str:
    """A new random token written to `path` (created 0600, replaced if there was one)."""
    token = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # a file left with wider permissions is not reused
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(token + "\n")
    return token


def read_token(path: Path) -> str:
    return path.read_text().strip()


def matches(header: bytes, token: str) -> bool:
    """True when an Authorization header carries exactly this bearer token."""
    return hmac.compare_digest(header, f"Bearer {token}".encode())

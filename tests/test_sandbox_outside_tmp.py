"""The sandbox's main wall, tested where it matters: outside `/tmp` (issue 40, "The tests that
guard the walls"). The sandbox gives `/tmp` a tmpfs of its own, so a test writing only under
`/tmp` passed even with the whole filesystem writable (`--bind / /` in place of `--ro-bind / /`).
Here a sandboxed command tries a fresh folder in the home folder, `/var/lib` and `/opt`: each
write must fail as a read-only file system and leave the host untouched. With `--ro-bind / /`
changed to `--bind / /` (tools/sandbox_probe.py), these tests fail. They never aim at a real
start-up file such as `~/.bashrc`: a broken wall must fail a test, not change the machine."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from tests.support.sandbox import bash, make_sandbox

PARENTS = {
    "home": Path.home(),
    "var-lib": Path("/var/lib"),
    "opt": Path("/opt"),
}


@pytest.fixture(params=sorted(PARENTS))
def outside(request):
    """A fresh folder under one of the parents, made on the host (where this user may write
    there at all); removed afterwards."""
    parent = PARENTS[request.param]
    folder = parent / f"agent-tui-wall-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir()
    except OSError as exc:
        pytest.skip(f"wall untested: cannot make a folder in {parent} as this user ({exc.strerror})")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_a_sandboxed_write_outside_the_workspace_and_tmp_fails(bwrap, ws, outside):
    sandbox = make_sandbox(ws, bwrap)
    target = outside / "pwned"
    out = await bash(sandbox, f"echo pwned > {target}; echo more >> {outside}/existing; mkdir {outside}/made")
    assert not target.exists(), out.text
    assert not (outside / "existing").exists() and not (outside / "made").exists()
    # Refused by the read-only system itself, not by a folder the sandbox hides (that is /tmp's case).
    assert "Read-only file system" in out.text, out.text

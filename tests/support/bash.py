"""Process probes and a file-backed offload for the `bash` tool tests."""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.base.messages import ResultRef


def alive(pid: int) -> bool:
    """Whether a process still runs. A killed orphan can linger as a zombie when the container's
    init does not reap; a zombie has exited, so it counts as dead."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in ("Z", "X")


def running_with(marker: str) -> list[int]:
    """Pids of processes whose command line contains `marker`."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def file_offload(folder: Path):
    """A real file-backed offload, standing in for the blob store: writes chunks as they come."""
    stored: dict[str, Path] = {}

    async def offload(tool_name: str, content) -> ResultRef:
        path = folder / f"blob{len(stored)}"
        size = lines = 0
        with path.open("wb") as fh:
            if isinstance(content, (str, bytes)):
                data = content.encode() if isinstance(content, str) else content
                fh.write(data)
                size, lines = len(data), data.count(b"\n")
            else:
                async for chunk in content:
                    fh.write(chunk)
                    size += len(chunk)
                    lines += chunk.count(b"\n")
        ref = ResultRef(id=f"r_{len(stored)}", byte_size=size, line_count=lines, tool_name=tool_name)
        stored[ref.id] = path
        return ref

    offload.stored = stored  # type: ignore[attr-defined]  # the test reads what was stored
    return offload

"""What the per-request status note says about background commands.

Running ones are listed in every request, so a compaction that summarised away the call that
started them cannot make the model forget them; an ended one is named once (its exit, its ref);
commands lost with an earlier process of a resumed session are named once too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent_tui.context.prompt_sections import PromptSection

if TYPE_CHECKING:
    from agent_tui.store.background_log import LostCommand
    from agent_tui.tools.background_shell import Shell


def _ref(ref: str | None, label: str = "output ref") -> str:
    return f" ({label} {ref})" if ref else ""


def status_note(
    lost: Sequence[LostCommand], ended: Sequence[Shell], running: Sequence[Shell]
) -> PromptSection | None:
    parts: list[str] = []
    if lost:
        gone = "; ".join(f"{c.shell_id} `{c.command}`{_ref(c.ref)}" for c in lost)
        parts.append(f"Background commands of this session that ended when it was last closed: {gone}.")
    if ended:
        said = "; ".join(f"{s.id} `{s.command}` {s.describe_end()}{_ref(s.ref_id, 'ref')}" for s in ended)
        parts.append(f"Background commands that ended: {said}.")
    if running:
        said = "; ".join(f"{s.id} `{s.command}`{_ref(s.ref_id)}" for s in running)
        parts.append(
            f"Background commands running: {said}. bash_output(id) reads new output, kill_shell(id) stops one."
        )
    if not parts:
        return None
    return PromptSection("background", "[" + " ".join(parts) + "]", cacheable=False)

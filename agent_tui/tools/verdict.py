"""The policy's answer about one call: allowed or not, why as a closed code, and the text.

Callers act on `allowed` and, where they must tell cases apart, on `reason`; `detail` is only
ever shown (to the model on a denial, in the log otherwise). Nothing matches on its words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

VerdictReason = Literal[
    "read_only",
    "sandbox_refused",
    "sandboxed",
    "rule",
    "yes_flag",
    "asked_once",
    "asked_session",
    "asked_always",
    "denied_by_user",
    "denied_with_hint",
    "denied_by_rule",
    "protected_allowed",
    "protected_denied",
    "unsandboxed_allowed",
    "unsandboxed_denied",
    "unsandboxed_unasked",
    "plan_mode",
    "accept_edits",
]
"""read_only: the tool changes nothing. sandbox_refused: the sandbox's write rules refuse the
path. sandboxed: auto_approve lets a sandboxed command run. rule: an allow rule (any tier) covers
it. yes_flag: --yes. asked_*: the approver allowed it once, for the session, or from now on.
denied_by_user / denied_with_hint: the approver refused, without or with a hint for the model.
denied_by_rule: a deny rule (the config's or Claude Code's settings) refused it unasked.
protected_*: a protected path, allowed or refused (asked every time). unsandboxed_*: a rerun
outside the sandbox, allowed, refused, or refused because nobody can be asked. plan_mode: plan
mode refused a call that changes something, unasked. accept_edits: accept-edits mode let a file
edit run unasked."""


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: VerdictReason
    detail: str
    """For people and the model: the denial message the model gets, or what allowed it."""

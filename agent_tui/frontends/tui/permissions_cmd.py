"""`/permissions`: the session's grants and the saved allow rules in one list, and `remove RULE`
that takes effect at once (the running policy forgets it; a saved rule also leaves the project file holding it).
"""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.frontends.tui.command_output import show
from agent_tui.policy.allow_rules import remove_rule, saved_rules
from agent_tui.policy.permission_rules import AllowRule, RuleError, RuleSet, Tier
from agent_tui.runtime import paths

if TYPE_CHECKING:
    from agent_tui.frontends.tui.command_host import TabCommandHost

USAGE = "/permissions remove RULE drops one (at once)."


async def run(view: TabCommandHost, argument: str) -> None:

    session = view.session
    workspace = session.workspace if session is not None else None
    words = argument.split(maxsplit=1)
    if words and words[0] == "remove":
        if len(words) < 2:
            view.notify(f"Usage: {USAGE}", severity="warning")
            return
        rule = words[1].strip()
        revoked = session.revoke_rule(rule) if session is not None else False
        saved = remove_rule(rule, workspace, words=SHIPPED_WORDS)
        if revoked or saved:
            where = " and from the project's settings" if saved else ""
            show(
                view, f"/permissions remove {rule}", f"Removed {rule}{where}: the next such call asks first."
            )
        else:
            view.notify(f"No rule {rule!r}: /permissions lists them.", severity="warning")
        return
    rules = RuleSet.of(session.grants()) if session is not None else RuleSet()
    for text, path in saved_rules(workspace):  # saved but not in force (untrusted, or saved since)
        tier: Tier = "local" if path.name == paths.LOCAL_CONFIG_NAME else "project"
        with suppress(RuleError):
            kept = AllowRule.parse(text, SHIPPED_WORDS)
            if all(held != kept for held, _tier in rules.entries()):
                rules.add(kept, tier)
    lines = [f"  {rule.format():<32} {tier_label(tier)}" for rule, tier in rules.entries()]
    listing = "\n".join(lines) or "  (none: every change asks first)"
    policy = session.runner.policy if session is not None else None
    narrowing = ""
    for title, held in (
        ("Always asked", policy and policy.ask_rules),
        ("Refused", policy and policy.deny_rules),
    ):
        if held:
            entries = "\n".join(f"  {r.format():<32} {tier_label(t)}" for r, t in held.entries())
            narrowing += f"\n{title}:\n{entries}"
    show(view, "/permissions", f"Allowed without asking:\n{listing}{narrowing}\n{USAGE}")


def tier_label(tier: Tier) -> str:
    """Where a rule lives, as /permissions says it: the file that holds it, or this session."""
    return {"session": "this session", "user": "config", "project": paths.CONFIG_NAME}.get(
        tier, paths.LOCAL_CONFIG_NAME
    )

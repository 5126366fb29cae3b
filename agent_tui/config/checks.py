"""The one validation pass over a merged config: every declared range and choice, the thresholds'
order, and the syntax of `[tools] allow` rules.

A value that makes no sense (`bash_timeout = -5`, `max_steps = 0`, `max_message_bytes = 0`)
used to be accepted and break things later, quietly: a turn that ends before the first model
call, a tool whose every output is empty. Each is a one-line problem naming the file the value
came from, the key and the range; an allow rule that can never match (`allow = ["git status"]`)
says what was probably meant. The bounds are the fields' own declarations (config/schema.py):
there is no second table to drift from them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

from agent_tui.config.coerce import SECTION_TYPES
from agent_tui.config.spec import Spec, spec_of
from agent_tui.policy.permission_rules import AllowRule
from agent_tui.policy.rule_vocabulary import RuleVocabulary


def declared() -> Iterator[tuple[str, type, dataclasses.Field[Any], Spec]]:
    """(`section.key`, section class, field, spec) for every declared key, in file order."""
    for section, cls in SECTION_TYPES.items():
        for f in dataclasses.fields(cls):
            found = spec_of(f.metadata)
            if found is None:
                raise TypeError(f"{section}.{f.name} declares no spec")
            yield f"{section}.{f.name}", cls, f, found


SPECS: dict[str, Spec] = {key: found for key, _cls, _f, found in declared()}
"""`section.key` → its declaration."""


def _choice_text(choices: tuple[str, ...]) -> str:
    if len(choices) == 2:
        return f'"{choices[0]}" or "{choices[1]}"'
    return "one of " + ", ".join(choices)


def value_problem(key: str, value: Any, origin: str) -> str | None:
    """Why `value` is not allowed for `key` (its declared range or choices), or None."""
    found = SPECS.get(key)
    if found is None or value is None:
        return None
    if found.range is not None and not isinstance(value, bool) and isinstance(value, (int, float)):
        if not found.range.admits(float(value)):
            return f"{origin}: {key} = {value!r} is out of range: must be {found.range.describe()}"
    if found.choices and value not in found.choices:
        # No origin: the CLI's own flags (--sandbox, --effort) land here with the same words.
        return f"{key} must be {_choice_text(found.choices)}, got {value!r}"
    return None


def _order_problem(flat: dict[str, Any]) -> str | None:
    warn, trigger, block = (flat[f"agent.{k}"] for k in ("warn_at", "compact_trigger", "hard_block"))
    if warn <= trigger <= block:
        return None
    return (
        "agent thresholds must satisfy warn_at ≤ compact_trigger ≤ hard_block "
        f"(got {warn}, {trigger}, {block})"
    )


def allow_rule_problems(
    rules: Iterable[Any], sources: dict[str, str], words: RuleVocabulary, key: str = "tools.allow"
) -> list[str]:
    """A rule in either syntax (agent-tui's or Claude Code's) that can never match, per rule."""
    origin = sources.get(key, "defaults")
    return [
        f"{origin}: {key} rule {rule!r}: {problem}"
        for rule in rules
        if (problem := AllowRule.problem_any(str(rule), words)) is not None
    ]


def config_problems(flat: dict[str, Any], sources: dict[str, str], words: RuleVocabulary) -> list[str]:
    """Every problem of the flattened config (`section.key` → value), one line each: declared
    ranges and choices in file order, then the thresholds' order, then allow-rule syntax (in the
    words the tools declare)."""
    problems = [
        problem
        for key, value in flat.items()
        if (problem := value_problem(key, value, sources.get(key, "defaults"))) is not None
    ]
    if (order := _order_problem(flat)) is not None:
        problems.append(order)
    prices = [flat.get(f"model.{k}_price_per_mtok") for k in ("input", "output")]
    if (prices[0] is None) != (prices[1] is None):
        origin = sources.get("model.input_price_per_mtok", sources.get("model.output_price_per_mtok"))
        problems.append(
            f"{origin}: set both model.input_price_per_mtok and output_price_per_mtok, or neither"
        )
    rules = [
        problem
        for key in ("tools.allow", "tools.ask", "tools.deny")
        for problem in allow_rule_problems(flat.get(key) or (), sources, words, key)
    ]
    return [*problems, *rules]

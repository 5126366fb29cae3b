"""Ranges for every number in the config, and the syntax of `[tools] allow` rules.

A value that makes no sense (`bash_timeout = -5`, `max_steps = 0`, `max_message_bytes = 0`)
used to be accepted and break things later, quietly: a turn that ends before the first model
call, a tool whose every output is empty. Each is now a one-line `ConfigError` naming the file
the value came from, the key and the range; an allow rule that can never match
(`allow = ["git status"]`) says what was probably meant.

The checks take plain values (the flattened config) and return the problems as text; config.py
raises them. So this module needs nothing of config.py and config.py can import it at the top.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Range:
    """Allowed values of one numeric key."""

    low: float
    high: float | None = None
    """None: no upper bound."""
    low_open: bool = False
    """The low end itself is excluded (`> 0` rather than `≥ 0`)."""
    unit: str = ""

    def admits(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        above = value > self.low if self.low_open else value >= self.low
        return above and (self.high is None or value <= self.high)

    def describe(self) -> str:
        low = f"{self.low:g}"
        unit = f" {self.unit}" if self.unit else ""
        if self.high is None:
            return f"{'greater than' if self.low_open else 'at least'} {low}{unit}"
        return f"between {low} and {self.high:g}{unit}" + (f" (not {low})" if self.low_open else "")


FRACTION = Range(0, 1, low_open=True)
SECONDS = Range(0, 86_400, low_open=True, unit="seconds")
COUNT = Range(1, 1_000_000)

RANGES: dict[str, Range] = {
    "model.context_window": Range(256, 100_000_000, unit="tokens"),
    "model.max_output_tokens": Range(1, 10_000_000, unit="tokens"),
    "model.thinking_budget_tokens": Range(0, 1_000_000, unit="tokens"),
    "agent.compact_trigger": FRACTION,
    "agent.hard_block": FRACTION,
    "agent.warn_at": FRACTION,
    "agent.result_offload_threshold": Range(256, 1 << 30, unit="bytes"),
    "agent.tool_deferral_threshold": FRACTION,
    "agent.max_steps": Range(1, 10_000),
    "compaction.target_ratio": Range(0, 1, low_open=True),
    "compaction.retain_last_turns": Range(0, 1000),
    "compaction.protected_ratio": Range(0, 1),
    "compaction.keep_user_messages_tokens": Range(0, 100_000_000, unit="tokens"),
    "tool_output.max_message_bytes": Range(1024, 1 << 30, unit="bytes"),
    "tool_output.max_line_length": Range(16, 1_000_000, unit="characters"),
    "tool_output.budget_tokens": Range(1, 100_000_000, unit="tokens"),
    "tools.bash_timeout": Range(0, 1800, low_open=True, unit="seconds"),
    "tools.search_timeout": Range(0, 600, low_open=True, unit="seconds"),
    "tools.max_output_bytes": Range(1024, 1 << 40, unit="bytes"),
    "tools.max_background": Range(0, 1000),
    "loop.max_iterations": COUNT,
    "loop.raw_window_size": COUNT,
    "loop.summarize_every": COUNT,
    "loop.max_summary_tokens": Range(16, 10_000_000, unit="tokens"),
    "loop.stall_limit": COUNT,
    "mcp.startup_timeout": SECONDS,
    "provider.connect_timeout": SECONDS,
    "provider.first_byte_timeout": SECONDS,
    "provider.idle_timeout": SECONDS,
    "provider.total_timeout": SECONDS,
    "agents.max_parallel": Range(1, 64),
    "agents.max_depth": Range(1, 3),
    "agents.result_tokens": Range(100, 100_000, unit="tokens"),
}
"""Every int and float key; tests/test_config_checks.py holds that none is missing."""


def check_ranges(flat: dict[str, Any], sources: dict[str, str]) -> list[str]:
    """One line per numeric value of `flat` (`section.key` → value) out of its range, naming
    where it came from."""
    problems = []
    for key, value in flat.items():
        allowed = RANGES.get(key)
        if allowed is None or value is None or isinstance(value, bool):
            continue
        if not allowed.admits(float(value)):
            origin = sources.get(key, "defaults")
            problems.append(f"{origin}: {key} = {value!r} is out of range: must be {allowed.describe()}")
    return problems


_TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]+\*?")


def allow_rule_problem(rule: Any) -> str | None:
    """Why an allow rule can never match, with the likely intended rule; None when it is fine."""
    text = str(rule).strip()
    tool, sep, pattern = text.partition(":")
    tool, pattern = tool.strip(), pattern.strip()
    if not text:
        return 'empty rule: use a tool name ("edit_file") or "bash:PREFIX" ("bash:git status")'
    if not sep:
        if _TOOL_NAME.fullmatch(text):
            return None
        return f'{text!r} is not a tool name; did you mean "bash:{text}"?'
    if tool == "bash":
        return None if pattern else 'rule "bash:" needs a command prefix, e.g. "bash:git status"'
    if tool.lower() in ("bash", "shell", "sh", "cmd", "command", "run"):
        return f'did you mean "bash:{pattern}"?'
    return f'only "bash:" takes a prefix; did you mean "{tool}" or "bash:{pattern}"?'


def check_allow_rules(rules: Iterable[Any], sources: dict[str, str]) -> list[str]:
    origin = sources.get("tools.allow", "defaults")
    return [
        f"{origin}: tools.allow rule {rule!r}: {problem}"
        for rule in rules
        if (problem := allow_rule_problem(rule)) is not None
    ]


def config_problems(flat: dict[str, Any], sources: dict[str, str]) -> list[str]:
    """Every problem of the flattened config (ranges, then allow-rule syntax), one line each."""
    return [*check_ranges(flat, sources), *check_allow_rules(flat.get("tools.allow") or (), sources)]

"""Compaction: make a conversation fit a token target, cheapest strategy first.

The chain (`compact`) runs tool-output clearing, pruning, summarisation and truncation in that
order and stops as soon as the conversation fits; `trim_tool_outputs` is the per-step cap on tool
outputs; `estimate_savings` tells the /context screen what each strategy could free;
`check_invariants` is the safety net the property tests hold every strategy to. Pure code: no
Textual, rich or litellm — the summariser is whatever async callable the loop passes in.
"""

from __future__ import annotations

from .chain import compact, estimate_savings
from .clearing import clear_tool_outputs, trimmed_placeholder
from .invariants import check_invariants
from .pruning import prune
from .result import CompactionPlan, CompactResult, StrategyOutcome, format_tokens
from .shape import collect_refs
from .strategies import LABELS, STRATEGIES, Strategy
from .summarize import summarize
from .summary_prompt import Summarizer, SummaryFailed, build_instructions, parse_reply
from .tool_budget import tool_output_tokens, trim_tool_outputs
from .transcript import TranscriptIndex, range_line
from .truncation import truncate

__all__ = [
    "LABELS",
    "STRATEGIES",
    "Strategy",
    "CompactResult",
    "CompactionPlan",
    "StrategyOutcome",
    "TranscriptIndex",
    "Summarizer",
    "SummaryFailed",
    "build_instructions",
    "check_invariants",
    "clear_tool_outputs",
    "collect_refs",
    "compact",
    "estimate_savings",
    "format_tokens",
    "parse_reply",
    "prune",
    "range_line",
    "summarize",
    "tool_output_tokens",
    "trim_tool_outputs",
    "trimmed_placeholder",
    "truncate",
]

"""Tool deferral: keep the tool schemas the model sees under a share of the window.

Every tool description costs tokens on every request. When all of them together pass
`tool_deferral_threshold` of the effective window, MCP tools are left out first, then skill
tools, then `task`, least recently used first. The built-ins are budgeted too: when what is left
still passes TOOL_SHARE of the effective window (a 4 096- or 8 192-token local model), every tool
is described by its declared `brief` sentence, and if that is not enough the built-ins a turn
rarely needs (`rarely_needed` in their declaration) wait behind tool_search as well. The model
gets `tool_search` and a note saying how many tools are deferred; a search promotes its matches
for the rest of the turn, and calling a deferred tool makes it recently used.

Cache stability shapes the rules: the offered tools keep their registration order, and the
selection only moves when the tool set, a promotion or a deferred tool's use changes it — using
a tool that is already offered never reorders what is sent. The note is cacheable for the same
reason: it changes only when the tools change, and those precede the system prompt in the cache.

Selection runs on every step, so it must stay cheap (≤ 2 ms with 500 tools, see
benchmarks/deferral.py): schema token counts are cached by the counter, the result is memoised
on the tool identities, the budget, the promotions and the usage clock, and usage is read from
the history incrementally.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from agent_tui.context.prompt_sections import PromptSection

DEFERRAL_ORDER = {"mcp": 0, "skill": 1, "agent": 2}
"""Sources that may be deferred, in the order they go."""
TOOL_SHARE = 0.25
"""The share of the effective window the offered tool descriptions may take whatever the window,
from 4 096 tokens up: past it the built-ins go brief, then the rarely needed ones are deferred
(tests/test_tool_share.py holds every window to it)."""
NOTE = "[{n} tools deferred to save context. Use tool_search to find them.]"


class SpecLike(Protocol):
    """What deferral needs of a tool spec (read-only, so frozen dataclasses qualify)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def rarely_needed(self) -> bool: ...
    def schema(self) -> dict[str, Any]: ...
    def brief_schema(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=SpecLike)


@dataclass(frozen=True)
class Selection:
    """The tools offered for one request."""

    schemas: tuple[dict[str, Any], ...]
    """What goes in `tools`, in registration order (tool_search last when added)."""
    deferred: tuple[str, ...] = ()
    """Names left out, in registration order."""
    tokens_all: int = 0
    """What every tool's schema would cost."""
    tokens_offered: int = 0
    """What the offered schemas cost."""
    budget: int = 0
    """The threshold in tokens (threshold × effective window)."""
    promoted: frozenset[str] = field(default_factory=frozenset)
    """Tools offered this turn because tool_search found them."""
    brief: bool = False
    """The offered tools are described by their brief sentences (the window is small)."""
    share_budget: int = 0
    """TOOL_SHARE of the effective window in tokens: what the built-ins are squeezed under."""
    reasons: tuple[tuple[str, str], ...] = ()
    """(name, why) for each deferred tool, for /tools and /context."""

    def why(self, name: str) -> str:
        return dict(self.reasons).get(name, "")

    @property
    def note(self) -> PromptSection | None:
        if not self.deferred:
            return None
        return PromptSection("deferral", NOTE.format(n=len(self.deferred)))


class ToolSelector:
    """Decides which tools each request offers; one per session."""

    def __init__(
        self,
        count: Callable[[dict[str, Any]], int],
        threshold: float = 0.10,
        search_schema: dict[str, Any] | None = None,
        search_brief: dict[str, Any] | None = None,
    ) -> None:
        self.count = count
        """Tokens one schema costs (the session's TokenCounter.count_tool_schema)."""
        self.threshold = threshold
        self.search_schema = search_schema
        """The tool_search schema, offered whenever something is deferred."""
        self.search_brief = search_brief or search_schema
        """Its brief form, offered with the other brief descriptions."""
        self._last_used: dict[str, int] = {}
        self._clock = 0
        self._seen = 0
        self._seen_id: str | None = None
        self._turn: str | None = None
        self._promoted: dict[str, str | None] = {}
        self._memo: tuple[Any, Selection] | None = None
        self._costed: tuple[tuple[int, ...], list[dict[str, Any]], list[int]] | None = None

    # -- what happened -------------------------------------------------------------------
    def observe(self, history: Sequence[Any]) -> None:
        """Read tool use and turn starts from the messages added since the last call."""
        n = len(history)
        if self._seen and (n < self._seen or history[self._seen - 1].id != self._seen_id):
            self._seen = 0  # rewritten by compaction: rescan what is left (clocks only grow)
        for index in range(self._seen, n):
            message = history[index]
            if message.role == "user" and message.kind == "chat":
                self._turn = message.id
            for call in message.tool_calls:
                self._clock += 1
                self._last_used[call.name] = self._clock
        self._seen = n
        self._seen_id = history[-1].id if n else None

    def promote(self, names: Sequence[str]) -> None:
        """Offer these tools for the rest of the current turn."""
        for name in names:
            self._promoted[name] = self._turn

    @property
    def promoted(self) -> frozenset[str]:
        return frozenset(n for n, turn in self._promoted.items() if turn == self._turn)

    # -- the choice ----------------------------------------------------------------------
    def select(self, specs: Sequence[SpecLike], effective_window: int) -> Selection:
        budget = int(self.threshold * max(effective_window, 1))
        share = max(budget, int(TOOL_SHARE * max(effective_window, 1)))
        promoted = self.promoted
        ids = tuple(map(id, specs))
        key = (ids, budget, promoted, self._clock)
        if self._memo is not None and self._memo[0] == key:
            return self._memo[1]
        if self._costed is None or self._costed[0] != ids:
            schemas = [spec.schema() for spec in specs]
            self._costed = (ids, schemas, [self.count(schema) for schema in schemas])
        selection = self._select(specs, self._costed[1], self._costed[2], budget, share, promoted)
        self._memo = (key, selection)
        return selection

    def _select(
        self,
        specs: Sequence[SpecLike],
        schemas: list[dict[str, Any]],
        costs: list[int],
        budget: int,
        share: int,
        promoted: frozenset[str],
    ) -> Selection:
        total = sum(costs)
        if total <= budget:
            return Selection(tuple(schemas), (), total, total, budget, promoted, share_budget=share)
        search = self.count(self.search_schema) if self.search_schema else 0
        running = total + search
        deferred: dict[int, str] = {}
        for index in self._order(specs, promoted, lambda spec: spec.source in DEFERRAL_ORDER):
            if running <= budget:
                break
            deferred[index] = f"{specs[index].source} tool: tools over {round(self.threshold * 100)}%"
            running -= costs[index]
        brief = running > share
        if brief:
            briefs = [spec.brief_schema() for spec in specs]
            brief_costs = [self.count(schema) for schema in briefs]
            brief_search = self.count(self.search_brief) if self.search_brief else 0
            running = brief_search + sum(c for i, c in enumerate(brief_costs) if i not in deferred)
            # All of them or none: a partial set (kill_shell offered, bash_output not) would read
            # as a choice, and would move with every promotion.
            for index in (
                self._order(specs, promoted, lambda spec: spec.rarely_needed) if running > share else ()
            ):
                if index not in deferred:
                    deferred[index] = (
                        f"rarely needed: tools over {round(TOOL_SHARE * 100)}% of a small window"
                    )
                    running -= brief_costs[index]
            schemas, search = briefs, brief_search
        if not deferred:
            cost = running - search if brief else total
            return Selection(tuple(schemas), (), total, cost, budget, promoted, brief, share)
        offered = [s for i, s in enumerate(schemas) if i not in deferred]
        if self.search_schema is not None:
            offered.append(self.search_brief if brief and self.search_brief else self.search_schema)
        names = tuple(specs[i].name for i in sorted(deferred))
        reasons = tuple((specs[i].name, deferred[i]) for i in sorted(deferred))
        return Selection(tuple(offered), names, total, running, budget, promoted, brief, share, reasons)

    def _order(
        self, specs: Sequence[SpecLike], promoted: frozenset[str], eligible: Callable[[SpecLike], bool]
    ) -> list[int]:
        """Indexes of the tools that may be deferred, in the order they go: by source, least
        recently used first."""
        order = sorted(
            (DEFERRAL_ORDER.get(spec.source, len(DEFERRAL_ORDER)), self._last_used.get(spec.name, 0), index)
            for index, spec in enumerate(specs)
            if eligible(spec) and spec.name not in promoted
        )
        return [index for _, _, index in order]


# -- tool_search's ranking ----------------------------------------------------------------

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    """Lower-case words of a name or description; camelCase and snake_case split, plurals cut."""
    out = set()
    for word in _WORD.findall(_CAMEL.sub(r"\1 \2", text).lower()):
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return out


_indexed: dict[int, tuple[SpecLike, set[str], set[str]]] = {}


def _index(spec: SpecLike) -> tuple[set[str], set[str]]:
    """A spec's name and description words, split once per spec object."""
    hit = _indexed.get(id(spec))
    if hit is None or hit[0] is not spec:
        if len(_indexed) > 20_000:
            _indexed.clear()
        hit = _indexed[id(spec)] = (spec, words(spec.name), words(spec.description or ""))
    return hit[1], hit[2]


def rank(query: str, specs: Sequence[S], limit: int = 5) -> list[S]:
    """The specs that best match `query` by name, then description; best first."""
    terms = words(query)
    whole = query.strip().lower()
    if not terms:
        return []
    scored = []
    for index, spec in enumerate(specs):
        name = spec.name.lower()
        score = 20.0 if whole in (name, name.split("__", 1)[-1]) else 0.0
        name_words, desc_words = _index(spec)
        for term in terms:
            if term in name_words:
                score += 5
            elif len(term) >= 3 and term in name:
                score += 3
            if term in desc_words:
                score += 2
            elif len(term) >= 4 and any(w.startswith(term) for w in desc_words):
                score += 1
        if score:
            scored.append((-score, index, spec))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [spec for _, _, spec in scored[:limit]]

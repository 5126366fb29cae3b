"""Assembles what each request holds: system prompt sections, tool schemas, wire messages.

Sections go static → dynamic: base instructions, project rules, memories, active skills, the
deferral note, then the per-turn status note. Tools are what deferral selects. For Anthropic
models the request carries `cache_control` breakpoints (llm/cache.py); every other provider gets
the system prompt as plain text.

The wire form of each message is cached (messages are frozen), so building a request over a long
history costs a list comprehension of dict lookups, not a re-serialisation. Every optional part
degrades instead of failing the turn: a builder failure sends plain text, a deferral failure
offers all tools, and either says so once through `Request.notices`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.agent.base_prompt import base_prompt
from agent_tui.base.reasoning import tool_turn
from agent_tui.base.same_prefix import same_prefix
from agent_tui.base.tokens import TokenCounter
from agent_tui.base.units import grouped
from agent_tui.base.wire_dict import WireDict
from agent_tui.context.deferral import DEFERRAL_ORDER, TOOL_SHARE, Selection, ToolSelector, rank
from agent_tui.context.memory import UserPrompts
from agent_tui.context.prompt import PromptBuilder, load_rules, status_note
from agent_tui.context.prompt_sections import PromptSection
from agent_tui.llm import cache
from agent_tui.tools.tool_search import ToolSearchTool

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.base.tokens import TokenCounter
    from agent_tui.context.budget import BudgetMeter, ContextBudget
    from agent_tui.context.side_state import SideState
    from agent_tui.tools.base import ToolSpec
    from agent_tui.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

SEARCH_TOOL = "tool_search"


@dataclass(frozen=True)
class Request:
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    notices: tuple[str, ...] = ()
    """Warnings for the user (a degraded part, an MCP server gone), each said once."""


class StatusSource(Protocol):
    """Something the per-turn status note reports (tools/background.py)."""

    def section(self) -> PromptSection | None: ...

    def sent(self) -> None:
        """A request carried the section."""


@dataclass(frozen=True)
class ToolRow:
    """One line of the /tools view."""

    name: str
    source: str
    """builtin / context / mcp / skill."""
    tokens: int
    """What the tool's schema costs in every request that offers it."""
    state: str
    """offered / brief (offered with its brief description) / deferred / promoted (found by
    tool_search this turn)."""
    description: str
    """First line of the description."""
    why: str = ""
    """For a deferred tool, why it waits behind tool_search."""


class PromptAssembler:
    def __init__(
        self,
        workspace: Path,
        registry: ToolRegistry,
        extra_sections: Sequence[PromptSection] = (),
        *,
        counter: TokenCounter | None = None,
        meter: BudgetMeter | None = None,
        cache_control: bool = False,
        deferral_threshold: float = 0.10,
        user_prompts: UserPrompts | None = None,
        notice_feed: Sequence[str] | None = None,
        status_sources: Sequence[StatusSource] = (),
    ) -> None:

        self.workspace = workspace
        self.registry = registry
        self.builder = PromptBuilder()
        self.counter = counter or TokenCounter()
        self.meter = meter
        """Gives the effective window deferral measures against (it follows resizes)."""
        self.cache_control = cache_control
        """Place Anthropic cache breakpoints (only for providers that take them)."""
        self.send_thinking = False
        """Anthropic: the turn in progress carries its thinking blocks (set per request)."""
        self._server_blocks = False
        self.user_prompts = user_prompts or UserPrompts()
        self.notice_feed = notice_feed
        """A list others append warnings to (the MCP manager's); read from where we left off."""
        self._feed_seen = 0  # a warning from before this session began is still news to it
        self._base = PromptSection("base", base_prompt(workspace, registry.specs()))
        self._rules, rules_problem = load_rules(workspace)
        self.extra_sections = list(extra_sections)
        self._wire: dict[Message, dict[str, Any]] = {}
        self._wire_seen: list[Message] = []
        self._wire_built: list[dict[str, Any]] = []
        self._anchor: str | None = None
        self._said: set[str] = set()
        self._pending_notices: list[str] = []
        self.status_sources: list[StatusSource] = list(status_sources)
        """Parts of the per-turn status note kept by others (the background commands)."""
        self.side: SideState | None = None
        """The pins and the task list, each sent in its own section every step."""
        if rules_problem:
            self._notice(rules_problem)
        if SEARCH_TOOL not in registry:
            registry.register(ToolSearchTool())
        search = registry.get(SEARCH_TOOL)
        assert search is not None
        self.selector = ToolSelector(
            self.counter.count_tool_schema,
            deferral_threshold,
            search.spec.schema(),
            search.spec.brief_schema(),
        )
        self.selection: Selection | None = None
        """What the last `tool_schemas` call offered (the /context and /tools views read it)."""

    # -- sections --------------------------------------------------------------------------
    def reload_rules(self) -> None:
        self._rules, problem = load_rules(self.workspace)
        if problem:
            self._notice(problem)

    def activate_skill(self, name: str) -> str:
        """Turn a skill on for this session; returns its description. ValueError if unknown."""
        return self.user_prompts.activate(name).description

    def deactivate_skill(self, name: str) -> bool:
        return self.user_prompts.deactivate(name)

    def sections(self, budget: ContextBudget | None) -> list[PromptSection]:
        out = [self._base]
        if self._rules is not None:
            out.append(self._rules)
        try:
            out.extend(self.user_prompts.sections())
        except Exception:
            log.exception("loading memories and skills failed")
            self._notice("Memories and skills could not be loaded (details in the log).")
        note = self.selection.note if self.selection is not None else None
        if note is not None:
            out.append(note)
        out.extend(self.extra_sections)
        if budget is not None and budget.should_warn:
            out.append(status_note(budget.used_fraction))
        for source in self.status_sources:
            part = source.section()
            if part is not None:
                out.append(part)
        if self.side is not None:
            out.extend(self.side.sections())
        return out

    # -- tools -----------------------------------------------------------------------------
    def _specs(self) -> list[ToolSpec]:
        return [spec for spec in self.registry.specs() if spec.name != SEARCH_TOOL]

    def effective_window(self) -> int:
        """The window deferral shares out, in the counter's tokens: when the provider's tokenizer
        makes more of the same text (Gemma splits digits), the calibration ratio shrinks it, so
        the share holds by the provider's count. Rounded so the tool set does not flicker."""
        if self.meter is None:
            return 1 << 30
        window = max(self.meter.total - self.meter.max_output_tokens, 1)
        # Capped: real tokenizers stay within 2× tiktoken on tool JSON; a figure past that is a
        # provider's odd report, not a reason to strip every description.
        ratio = min(max(round(self.meter.calibration.ratio, 1), 1.0), 2.0)
        return max(int(window / ratio), 1)

    def tool_schemas(self, history: Sequence[Message]) -> list[dict[str, Any]]:
        specs = self._specs()
        try:
            self.selector.observe(history)
            self.selection = self.selector.select(specs, self.effective_window())
        except Exception:
            log.exception("tool deferral failed; offering every tool")
            self._notice("Tool deferral failed; every tool is offered (details in the log).")
            self.selection = Selection(tuple(spec.schema() for spec in specs))
        return list(self.selection.schemas)

    def search_tools(self, query: str, limit: int = 5) -> list[ToolSpec]:
        """tool_search: rank the deferrable tools and offer the matches for this turn."""
        candidates = [s for s in self._specs() if s.source in DEFERRAL_ORDER or s.rarely_needed]
        found = rank(query, candidates, limit)
        self.selector.promote([spec.name for spec in found])
        return found

    def tool_table(self) -> list[ToolRow]:
        """Every tool with its cost and whether the last request offered it (for /tools)."""
        selection = self.selection
        deferred = set(selection.deferred) if selection else set()
        promoted = selection.promoted if selection else frozenset()
        rows = []
        for spec in self.registry.specs():
            if spec.name == SEARCH_TOOL and not deferred:
                continue
            brief = selection is not None and selection.brief and spec.name not in deferred
            state = (
                "deferred"
                if spec.name in deferred
                else "promoted"
                if spec.name in promoted
                else "brief"
                if brief and spec.brief
                else "offered"
            )
            rows.append(
                ToolRow(
                    spec.name,
                    spec.source,
                    self.counter.count_tool_schema(spec.brief_schema() if brief else spec.schema()),
                    state,
                    (spec.description or "").strip().split("\n", 1)[0],
                    selection.why(spec.name) if selection is not None else "",
                )
            )
        return rows

    def tool_share_line(self) -> str:
        """One line on what the tools may take and what was done to hold it (/tools, /context)."""
        selection = self.selection
        if selection is None or not (selection.brief or selection.deferred):
            return ""
        done = []
        if selection.brief:
            done.append("built-ins described briefly")
        if selection.deferred:
            done.append(f"{len(selection.deferred)} deferred behind tool_search")
        return (
            f"Tools may take {round(TOOL_SHARE * 100)}% of the effective window "
            f"({grouped(selection.share_budget)} tokens): {', '.join(done)}."
        )

    # -- the request -----------------------------------------------------------------------
    def wire(self, message: Message) -> dict[str, Any]:
        data = self._wire.get(message)
        if data is None:
            wire = message.to_openai()
            if message.server_blocks and self._server_blocks:
                wire["server_blocks"] = [json.loads(block) for block in message.server_blocks]
            data = self._wire[message] = WireDict(wire)
        return data

    def send_server_blocks(self, on: bool) -> None:
        """Whether messages carry the provider's own search blocks: Anthropic's API wants them back
        as they came while its search tool is offered, and a request without the tool may not
        hold them. A change rebuilds the wire forms."""
        if on != self._server_blocks:
            self._server_blocks = on
            self._wire, self._wire_seen, self._wire_built = {}, [], []

    def _conversation(self, history: Sequence[Message]) -> list[dict[str, Any]]:
        """The wire dicts of `history`: past the longest prefix of the very same messages as last
        time (all of them when the history only grew) only the rest is converted."""
        seen, built = self._wire_seen, self._wire_built
        same = same_prefix(history, seen)
        if same < len(seen):
            if len(self._wire) > 4 * len(history) + 1000:
                live = set(history)
                self._wire = {m: d for m, d in self._wire.items() if m in live}
            seen, built = seen[:same], built[:same]
        tail = history[same:]
        seen.extend(tail)
        built.extend(map(self.wire, tail))
        self._wire_seen, self._wire_built = seen, built
        return list(built)

    def _notice(self, text: str) -> None:
        if text not in self._said:
            self._said.add(text)
            self._pending_notices.append(text)

    def _take_notices(self) -> tuple[str, ...]:
        if self.notice_feed is not None and len(self.notice_feed) > self._feed_seen:
            fresh = list(self.notice_feed[self._feed_seen :])
            self._feed_seen += len(fresh)
            self._pending_notices.extend(fresh)
        out, self._pending_notices = tuple(self._pending_notices), []
        return out

    def request(
        self, history: Sequence[Message], sections: Sequence[PromptSection], tools: list[dict[str, Any]]
    ) -> Request:
        for source in self.status_sources:
            source.sent()
        built = self.builder.build(sections)
        if built.warning:
            self._notice(built.warning)
        conversation = self._conversation(history)
        if self.send_thinking:
            with_thinking(history, conversation)
        # A paused reply is continued: it must stay last, so this request carries no status note.
        note = "" if history and history[-1].role == "assistant" else built.dynamic_text
        if self.cache_control and not built.warning:
            messages = cache.cached_request(built.cached_blocks, conversation, self._anchors(history), note)
        else:
            messages = [{"role": "system", "content": _static_text(built)}, *conversation]
            if note and not built.warning:
                _append_to_newest(messages, note)
        return Request(messages, list(tools), self._take_notices())

    def _anchors(self, history: Sequence[Message]) -> list[int]:
        """The newest message, then the one that was newest in the previous request."""
        if not history:
            return []
        anchors = [len(history) - 1]
        if self._anchor is not None:
            for index in range(len(history) - 2, -1, -1):
                if history[index].id == self._anchor:
                    anchors.append(index)
                    break
        self._anchor = history[-1].id
        return anchors


def with_thinking(history: Sequence[Message], conversation: list[dict[str, Any]]) -> None:
    """Give the assistant messages of the tool-use turn the request continues their thinking
    blocks, as copies: Anthropic wants them back unchanged there and drops them itself from
    earlier turns, so older ones are not sent (nor counted)."""
    for index in tool_turn(history, _role):
        reasoning = history[index].reasoning
        if reasoning is not None and reasoning.blocks:
            blocks = [block.to_anthropic() for block in reasoning.blocks]
            conversation[index] = {**conversation[index], "thinking_blocks": blocks}


def _role(message: Message) -> str:
    return message.role


def _static_text(built: Any) -> str:
    """The system prompt without its per-turn part (or all of it when the builder failed)."""
    if built.warning or not built.dynamic_text:
        return str(built.text)
    return "".join(text for text, cacheable in built.blocks if cacheable)


def _append_to_newest(messages: list[dict[str, Any]], note: str) -> None:
    """Put the per-turn note on the newest message (a copy: cached wire dicts stay clean).

    In the system prompt a note that changes every turn would change the whole prefix and void
    the provider's prompt cache (OpenAI, llama.cpp, vLLM cache by prefix); at the end only the
    newest message differs. A separate message would break strict role alternation."""
    last = dict(messages[-1])
    content = last.get("content")
    if isinstance(content, str) or content is None:
        last["content"] = f"{content}\n\n{note}" if content else note
        messages[-1] = last
    else:
        messages[0] = {**messages[0], "content": f"{messages[0]['content']}\n\n{note}"}

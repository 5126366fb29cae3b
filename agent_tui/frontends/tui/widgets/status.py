"""Small pieces of the session view: the working line, the queue of waiting sends, and the
panel shown when no model is configured."""

from __future__ import annotations

import time

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui.frontends.tui.widgets.chat_items import spinner_frame
from agent_tui.runtime import paths

LOCAL_EXAMPLE = "agent-tui --model openai/qwen2.5 --api-base http://localhost:11434/v1 --context-window 32768"


class WorkingLine(Static):
    """While a turn or compaction runs: what it is doing, for how long, the tokens received so
    far and how to stop it — `⠋ streaming · 12 s · 340 tokens · Esc to interrupt`."""

    clock = staticmethod(time.monotonic)
    """Where elapsed time comes from (snapshot tests freeze it)."""

    def on_mount(self) -> None:
        self.display = False
        self.state = ""
        self._started = self.clock()
        self._tokens_done = 0  # reported by the provider for finished steps
        self._chars = 0  # streamed in the current step (estimated at ~4 characters a token)
        self._ticker = self.set_interval(0.1, self._tick, pause=True)

    @property
    def tokens(self) -> int:
        return self._tokens_done + self._chars // 4

    def start(self, state: str = "thinking") -> None:
        self._started = self.clock()
        self._tokens_done = self._chars = 0
        self.display = True
        self.set_state(state)
        self._ticker.resume()

    def set_state(self, state: str) -> None:
        if not self.display:
            return
        self.state = state
        self._tick()

    def streamed(self, text: str) -> None:
        self._chars += len(text)

    def step_reported(self, completion_tokens: int) -> None:
        """The provider's count for the step that just ended replaces the estimate."""
        self._tokens_done += completion_tokens
        self._chars = 0

    def stop(self) -> None:
        self.display = False
        self.state = ""
        self._ticker.pause()

    def _tick(self) -> None:
        now = self.clock()
        elapsed = now - self._started
        waiting = self.state == "awaiting approval"
        parts = [
            ("⏸ " if waiting else f"{spinner_frame(now)} ") + self.state,
            f"{elapsed:.0f} s" if elapsed >= 10 else f"{elapsed:.1f} s",
        ]
        if self.tokens:
            parts.append(f"{self.tokens:,} tokens".replace(",", " "))
        parts.append("Esc to interrupt")
        # One row whatever it says (app.tcss): a layout here would lay out every mounted chat
        # item again, ten times a second while the reply being waited for arrives.
        self.update(Text(" · ".join(parts)), layout=False)


class QueuePanel(Vertical):
    """Sends waiting for the running turn or compaction, shown dimmed in order."""

    def on_mount(self) -> None:
        self.display = False

    async def push(self, text: str) -> None:
        await self.mount(Static(Text("queued  " + " ".join(text.split())[:200]), classes="queued"))
        self.display = True

    async def pop(self) -> None:
        items = self.query(".queued")
        if items:
            await items.first().remove()
        self.display = bool(self.query(".queued"))


class NoModelPanel(Static):
    """How to set a model, in one panel, when the app opened without one."""

    def explain(self, reason: str) -> None:
        text = Text()
        if reason.lower().startswith("no model configured"):
            text.append("No model configured.\n\n", style="bold")
        else:  # a model is named but cannot be used (unknown window, bad settings)
            text.append("The configured model cannot be used:\n", style="bold")
            text.append(f"{reason}\n\n")
        text.append("Set one of:\n", style="bold")
        text.append(
            "  • an API key in the environment litellm reads, e.g. ANTHROPIC_API_KEY "
            "or OPENAI_API_KEY,\n    and a model: AGENT_TUI_MODEL=anthropic/"
            "claude-sonnet-4-5 or --model NAME\n"
        )
        text.append(f'  • [model] name = "…" in {paths.shown(paths.user_config_file())}\n')
        text.append("  • a local OpenAI-compatible server:\n")
        text.append(f"      {LOCAL_EXAMPLE}\n\n")
        text.append(
            "Stored sessions stay browsable: /resume opens one read-only; "
            "/model NAME sets a model for this tab."
        )
        self.update(text)
        self.display = True

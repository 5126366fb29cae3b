"""Small pieces of the session view: the thinking line, the queue of waiting sends, and the
panel shown when no model is configured."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from agent_tui import paths
from agent_tui.ui.widgets.chat_items import spinner_frame

LOCAL_EXAMPLE = "agent-tui --model openai/qwen2.5 --api-base http://localhost:11434/v1 --context-window 32768"


class ThinkingLine(Static):
    """`⠋ thinking…` while the model works and nothing has streamed yet."""

    def on_mount(self) -> None:
        self.display = False
        self._ticker = self.set_interval(0.1, self._tick, pause=True)

    def _tick(self) -> None:
        self.update(f"{spinner_frame()} thinking…")

    def show(self, on: bool) -> None:
        if on == self.display:
            return
        self.display = on
        if on:
            self._tick()
            self._ticker.resume()
        else:
            self._ticker.pause()


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

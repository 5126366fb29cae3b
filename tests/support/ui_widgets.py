"""A bare app around one chat pane, for the widget tests that need no session."""

from __future__ import annotations

from textual.app import App

from agent_tui.frontends.tui.transcript import AgentEntry, UserEntry
from agent_tui.frontends.tui.widgets.chat import ChatPane
from agent_tui.frontends.tui.widgets.prompt import PromptArea, PromptInput


class PromptApp(App):
    CSS_PATH = "../../agent_tui/frontends/tui/app.tcss"

    def __init__(self):
        super().__init__()
        self.sent: list[str] = []

    def get_theme_variable_defaults(self):
        from agent_tui.frontends.tui.themes import VARIABLE_DEFAULTS

        return {**super().get_theme_variable_defaults(), **VARIABLE_DEFAULTS}

    def compose(self):
        yield PromptArea()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.sent.append(event.text)
        event.prompt.remember(event.text)
        event.prompt.set_text("")


class ChatApp(PromptApp):
    def compose(self):
        yield ChatPane()


def many(n: int) -> list:
    entries = []
    for i in range(n):
        entries.append(
            UserEntry(f"question {i}")
            if i % 2 == 0
            else AgentEntry(f"answer **{i}**\n\n```python\nx = {i}\n```")
        )
    return entries

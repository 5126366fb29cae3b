"""The approval modal: what a tool that changes things is about to do, and the user's answer.

`a` allows this call, `s` allows it for the rest of the session (for bash: the prefix in the
field, editable, defaulting to the policy's suggestion; when there is none the field holds the
whole command and, left so, allows only that exact command), `w` always (a rule in
.agent-tui.toml), `d` or Escape denies. The field is not focused at first so the letters act as
keys; Tab (or `e`) moves into it with the cursor at the end of the suggestion, Tab again back to
the buttons, and Enter there means "allow for this session".

Every action stays visible at 80×24: the buttons are one row of compact buttons and the preview
gives up height to them when the terminal is short.
"""

from __future__ import annotations

from typing import ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest


class ApprovalScreen(ModalScreen[ApprovalDecision]):
    BINDINGS: ClassVar = [
        Binding("a", "allow_once", "Allow once"),
        Binding("s", "allow_session", "Allow for session"),
        Binding("w", "allow_always", "Always allow"),
        Binding("d", "deny", "Deny"),
        Binding("escape", "deny", "Deny", show=False),
        Binding("tab,e", "edit_prefix", "Edit prefix", show=False),
    ]
    FIXED_ROWS = 16
    """Rows the dialog needs besides the preview's text: border, padding, title, the preview's
    border, hint, field, buttons and the note, with their margins."""

    def __init__(self, request: ApprovalRequest, *, where: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.request = request
        self.where = where

    @property
    def _command(self) -> str | None:
        command = self.request.arguments.get("command")
        return command if self.request.tool == "bash" and isinstance(command, str) else None

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval", classes="dialog"):
            title = f"Allow {request.tool}?" + (f"  ·  {self.where}" if self.where else "")
            yield Label(Text(title), classes="dialog-title")
            if request.sandbox:
                # Whether the command is confined is part of what the user decides on.
                style = "bold red" if "NOT sandboxed" in request.sandbox else "green"
                yield Label(Text(request.sandbox, style=style), id="approval-sandbox")
            lexer = (
                "bash"
                if self._command is not None
                else ("diff" if request.preview.lstrip().startswith(("---", "@@", "diff")) else "text")
            )
            with VerticalScroll(id="approval-preview"):
                yield Static(
                    Syntax(
                        request.preview or "(no preview)",
                        lexer,
                        word_wrap=True,
                        theme="ansi_dark" if self.app.current_theme.dark else "ansi_light",
                        background_color="default",
                    )
                )
            if self._command is not None and not request.once_only:
                hint = (
                    "This session allows commands starting with (Tab edits):"
                    if request.suggested_prefix
                    else "This session allows this exact command (Tab edits it into a prefix):"
                )
                yield Label(hint, classes="dialog-hint")
                yield Input(
                    request.suggested_prefix or self._command,
                    id="approval-prefix",
                    select_on_focus=False,
                    compact=True,
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("[a] Allow once"), id="allow-once", variant="primary", compact=True)
                if not self.request.once_only:
                    yield Button(Text("[s] This session"), id="allow-session", compact=True)
                    yield Button(Text("[w] Always"), id="allow-always", compact=True)
                yield Button(Text("[d] Deny"), id="deny", variant="error", compact=True)
            if not self.request.once_only:
                yield Label(
                    "Always writes an allow rule to .agent-tui.toml · Esc denies", classes="dialog-note"
                )
            else:
                yield Label("Esc denies", classes="dialog-note")

    def on_mount(self) -> None:
        self.query_one("#allow-once", Button).focus()
        self._fit_preview()

    def on_resize(self) -> None:
        self._fit_preview()

    def _fit_preview(self) -> None:
        """Give the preview what is left of the terminal's height, so the buttons never fall off."""
        fixed = self.FIXED_ROWS + (1 if self.request.sandbox else 0)  # the sandbox line
        room = int(self.size.height * 0.9) - fixed  # the dialog's max-height is 90%
        self.query_one("#approval-preview").styles.max_height = max(3, min(16, room))

    def action_edit_prefix(self) -> None:
        fields = self.query("#approval-prefix")
        if not fields:
            return
        field = fields.first(Input)
        if field.has_focus:
            self.query_one("#allow-once", Button).focus()
            return
        field.focus()
        field.cursor_position = len(field.value)

    def _decide(self, action: str, prefix: str | None = None) -> None:
        self.dismiss(ApprovalDecision(action, prefix))  # type: ignore[arg-type]  # callers pass the four action literals

    def action_allow_once(self) -> None:
        self._decide("allow_once")

    def action_allow_always(self) -> None:
        """Like allow for session, but written as a rule to the project's .agent-tui.toml."""
        if not self.request.once_only:
            self._decide("allow_always", self._chosen_prefix())

    def action_allow_session(self) -> None:
        if not self.request.once_only:
            self._decide("allow_session", self._chosen_prefix())

    def _chosen_prefix(self) -> str | None:
        prefix = None
        if self._command is not None and not self.request.once_only:
            typed = self.query_one("#approval-prefix", Input).value.strip()
            # Without a suggestion the field starts as the whole command, meaning "this exact
            # command"; anything else typed there is a prefix.
            exact = self.request.suggested_prefix is None and typed == self._command.strip()
            prefix = typed if typed and not exact else None
        return prefix

    def action_deny(self) -> None:
        self._decide("deny")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        {
            "allow-once": self.action_allow_once,
            "allow-session": self.action_allow_session,
            "allow-always": self.action_allow_always,
            "deny": self.action_deny,
        }[event.button.id or "deny"]()

    @on(Input.Submitted, "#approval-prefix")
    def _prefix_entered(self) -> None:
        self.action_allow_session()

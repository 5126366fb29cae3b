"""The approval modal: what a tool that changes things is about to do, and the user's answer.

The choices are numbered and take a deliberate act (frontends/tui/screens/deliberate.py): a digit selects,
Enter confirms, Escape denies, and nothing typed as part of a sentence — or in the first moment
after the dialog appeared — decides anything; the typed text goes on to the message input.
1 allows this call, 2 allows it for the rest of the session (for bash: the prefix in the
field, editable, defaulting to the policy's suggestion; when there is none the field holds the
whole command and, left so, allows only that exact command), 3 always (a rule in
the git-ignored .agent-tui.local.toml), 4 denies. Tab moves into the field with the cursor at
the end of the suggestion, Tab again back to the buttons, and Enter there means "allow for this
session".

Every action stays visible at 80×24: the buttons are one row of compact buttons and the preview
gives up height to them when the terminal is short, scrolling inside the dialog (Down, Up,
PageDown, PageUp, Home, End work from the buttons).

What is shown is what runs: every control character of the command or diff is made visible
(`␛`, `␍`, `⟨U+202E⟩`…, agent_tui/base/visible_text.py), each line of a many-line command is its own
line in the preview and a `⏎` in the one-line field, and the dialog warns when either is there.
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

from agent_tui.base.visible_text import visible
from agent_tui.frontends.tui.screens.deliberate import Deliberate
from agent_tui.tools.permissions import ApprovalDecision, ApprovalRequest
from agent_tui.tools.run_mode import background_notice

_SCROLL_KEYS = {
    "down": "scroll_down",
    "up": "scroll_up",
    "pagedown": "scroll_page_down",
    "pageup": "scroll_page_up",
    "home": "scroll_home",
    "end": "scroll_end",
}


class ApprovalScreen(Deliberate, ModalScreen[ApprovalDecision]):
    CHOICES = ("allow-once", "allow-session", "allow-always", "deny")
    BINDINGS: ClassVar = [
        Binding("escape", "escape_deny", "Deny", show=False),
        Binding("tab", "edit_prefix", "Edit prefix", show=False),
        *(Binding(key, f"preview('{action}')", show=False) for key, action in _SCROLL_KEYS.items()),
    ]
    FIXED_ROWS = 11
    """Rows the dialog needs besides the preview and the prefix field: border, padding, title,
    the preview's border, buttons and the note, with their margins."""
    FIELD_ROWS = 3
    """The hint above the prefix field (with its margin) and the field."""

    def __init__(self, request: ApprovalRequest, *, where: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.request = request
        self.where = where

    @property
    def _command(self) -> str | None:
        command = self.request.arguments.get("command")
        return command if self.request.tool == "bash" and isinstance(command, str) else None

    @property
    def _shown_command(self) -> str:
        """The command as the one-line field shows it: control characters and newlines visible."""
        return visible(self._command or "", one_line=True)

    @property
    def _suggestion(self) -> str | None:
        """The policy's prefix, unless it holds a character the field would show differently:
        then only the exact command is offered (a prefix of pictures would never match)."""
        prefix = self.request.suggested_prefix
        return prefix if prefix and visible(prefix, one_line=True) == prefix else None

    def _warning(self) -> str | None:
        """What about the command the user should know before reading it."""
        command = self._command
        if command is None:
            return None
        notes = []
        if visible(command.replace("\n", "")) != command.replace("\n", ""):
            notes.append("contains control characters (shown as ␛, ␍, ⟨U+…⟩)")
        lines = command.strip("\n").count("\n") + 1
        if lines > 1:
            notes.append(f"is {lines} lines (all shown below; scroll with ↓/PgDn)")
        return "The command " + " and ".join(notes) + "." if notes else None

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="approval", classes="dialog"):
            title = f"Allow {request.tool}?" + (f"  ·  {self.where}" if self.where else "")
            yield Label(Text(title), classes="dialog-title")
            if request.sandbox:
                # Whether the command is confined is part of what the user decides on.
                style = "bold red" if "NOT sandboxed" in request.sandbox else "green"
                yield Label(Text(request.sandbox, style=style), id="approval-sandbox")
            if background := background_notice(request.tool, request.arguments):
                yield Label(Text(f"{background} (/tasks)", style="bold"), id="approval-background")
            if warning := self._warning():
                yield Label(Text(warning, style="bold red"), id="approval-warning")
            lexer = (
                "bash"
                if self._command is not None
                else ("diff" if request.preview.lstrip().startswith(("---", "@@", "diff")) else "text")
            )
            with VerticalScroll(id="approval-preview"):
                yield Static(
                    Syntax(
                        visible(request.preview) or "(no preview)",
                        lexer,
                        # Numbered, a many-line command's blank lines are seen as lines.
                        line_numbers="\n" in (self._command or "").strip(),
                        word_wrap=True,
                        theme="ansi_dark" if self.app.current_theme.dark else "ansi_light",
                        background_color="default",
                    )
                )
            if self._command is not None and not request.once_only:
                hint = (
                    "This session allows commands starting with (Tab edits):"
                    if self._suggestion
                    else "This session allows this exact command (Tab edits it into a prefix):"
                )
                yield Label(hint, classes="dialog-hint")
                with Horizontal(id="approval-prefix-row"):
                    yield Input(
                        self._suggestion or self._shown_command,
                        id="approval-prefix",
                        select_on_focus=False,
                        compact=True,
                    )
                    # Input scrolls instead of cutting with an ellipsis: say when it is cut.
                    yield Label("…", id="approval-prefix-more")
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("1 Allow once"), id="allow-once", variant="primary", compact=True)
                if not self.request.once_only:
                    yield Button(Text("2 This session"), id="allow-session", compact=True)
                    yield Button(Text("3 Always"), id="allow-always", compact=True)
                deny = "4 Deny" if not self.request.once_only else "2 Deny"
                yield Button(Text(deny), id="deny", variant="error", compact=True)
            if "sub-agent:" in self.where and not self.request.once_only:
                # One policy for the tab: a sub-agent's grant is its parent's too (agent/subagents.py).
                yield Label(
                    "2 and 3 cover this tab's whole session, its sub-agents included",
                    classes="dialog-note",
                    id="approval-shared",
                )
            choose = "1-4, Enter" if not self.request.once_only else "1-2, Enter"
            if not self.request.once_only:
                yield Label(
                    f"{choose} · Esc denies · Always: a rule in .agent-tui.local.toml",
                    classes="dialog-note",
                    id="approval-note",
                )
            else:
                yield Label(f"{choose} · Esc denies", classes="dialog-note", id="approval-note")

    def on_mount(self) -> None:
        self.query_one("#allow-once", Button).focus()
        self._fit_preview()
        self.arm_later()

    def on_resize(self) -> None:
        self._fit_preview()

    def _fit_preview(self) -> None:
        """Give the preview what is left of the terminal's height, so the buttons never fall off."""
        short = self.size.height < 30
        dialog = self.query_one("#approval")
        # A short terminal: the dialog's blank rows go to the preview's lines.
        dialog.set_class(short, "-short")
        fixed = self.FIXED_ROWS - (2 if short else 0)
        fixed += sum(
            1
            for _ in self.query(
                "#approval-sandbox, #approval-warning, #approval-background, #approval-shared"
            )
        )
        if self.query("#approval-prefix"):
            fixed += self.FIELD_ROWS
        room = int(self.size.height * (1.0 if short else 0.9)) - fixed
        self.query_one("#approval-preview").styles.max_height = max(3, min(16 if not short else room, room))
        self.call_after_refresh(self._mark_cut_field)

    def _mark_cut_field(self) -> None:
        fields = self.query("#approval-prefix")
        if not fields:
            return
        field = fields.first(Input)
        more = self.query_one("#approval-prefix-more", Label)
        width = field.content_region.width
        more.display = bool(width) and Text(field.value).cell_len > width and not field.has_focus

    @on(Input.Changed, "#approval-prefix")
    def _field_changed(self) -> None:
        self._mark_cut_field()

    def action_preview(self, action: str) -> None:
        """Scroll the preview from wherever the focus is (the buttons have no use for these keys)."""
        if isinstance(self.focused, Input) and action in ("scroll_home", "scroll_end"):
            # Home/End move the cursor within the field being edited.
            getattr(self.focused, "action_" + ("home" if action == "scroll_home" else "end"))()
            return
        preview = self.query_one("#approval-preview", VerticalScroll)
        getattr(preview, action)(animate=False)

    def action_edit_prefix(self) -> None:
        fields = self.query("#approval-prefix")
        if not fields:
            # Nothing to edit (a diff): Tab moves between the preview and the buttons.
            preview = self.query_one("#approval-preview", VerticalScroll)
            (self.query_one("#allow-once", Button) if preview.has_focus else preview).focus()
            return
        field = fields.first(Input)
        if field.has_focus:
            self.query_one("#allow-once", Button).focus()
            self.call_after_refresh(self._mark_cut_field)
            return
        field.focus()
        field.cursor_position = len(field.value)
        self.query_one("#approval-prefix-more", Label).display = False

    def _decide(self, action: str, prefix: str | None = None) -> None:
        if not self.may_decide():
            # Typed text went to the message; the answer needs a choice made after it.
            last = len(self.choices())
            note = f"Your typing went to your message · choose 1-{last}, then Enter · Esc denies"
            self.query_one("#approval-note", Label).update(note)
            return
        self.dismiss(ApprovalDecision(action, prefix))  # type: ignore[arg-type]  # callers pass the four action literals

    def action_allow_once(self) -> None:
        self._decide("allow_once")

    def action_allow_always(self) -> None:
        """Like allow for session, but written as a rule to the project's .agent-tui.local.toml."""
        if not self.request.once_only:
            self._decide("allow_always", self._chosen_prefix())

    def action_allow_session(self) -> None:
        if not self.request.once_only:
            self._decide("allow_session", self._chosen_prefix())

    def _chosen_prefix(self) -> str | None:
        prefix = None
        if self._command is not None and not self.request.once_only:
            typed = self.query_one("#approval-prefix", Input).value.strip()
            # Without a suggestion the field starts as the whole command (as shown), meaning
            # "this exact command"; anything else typed there is a prefix.
            exact = self._suggestion is None and typed == self._shown_command.strip()
            prefix = typed if typed and not exact else None
        return prefix

    def action_deny(self) -> None:
        self._decide("deny")

    def action_escape_deny(self) -> None:
        """Escape refuses at any moment: no sentence holds it, and refusing cannot hurt."""
        self.dismiss(ApprovalDecision("deny"))

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

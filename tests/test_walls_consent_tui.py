"""Round three of the walls, in the real app (Pilot): an approval, trust or rewind answer takes
a deliberate act (issue 40 finding 3, issue 43 item 6 and bugs Medium 2 and 7). A sentence typed
while a dialog opens decides nothing and is not lost; the trust dialog's buttons and keys are on
screen at 80×24, and *Not now* leaves one short line, not a notice over the meter."""

from __future__ import annotations

from agent_tui.frontends.tui.screens import deliberate
from agent_tui.frontends.tui.screens.approval import ApprovalScreen
from agent_tui.frontends.tui.screens.trust import TrustScreen
from agent_tui.policy import trust
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.extend import trusting_app
from tests.support.ui_helpers import Host, make_app, notices, screen_text, send, settle, until, until_armed

WRITE = Reply(tool_calls=[("write_file", {"path": "a.txt", "content": "x\n"})])


async def _typed(pilot, text: str) -> None:
    await pilot.press(*("space" if c == " " else c for c in text))


class TestApprovalTakesADeliberateAct:
    async def test_a_sentence_typed_while_the_dialog_opens_decides_nothing(
        self, server, workspace, tmp_path, monkeypatch
    ):
        """The finding: the `a` of "also" approved the write and `lso` was left in the input;
        a `d` in "queued" denied. Now every letter goes to the input, in order."""
        # Pilot's keys are a fast typist's, but a loaded machine (CI) once held one back past the
        # half second that ends a sentence, and the `2` became a choice: the gap is widened here
        # so the test asserts the rule, not the machine's speed.
        monkeypatch.setattr(deliberate, "TYPING_GAP", 3.0)
        server.enqueue(WRITE, Reply(text="done"))
        app = make_app(make_config(server, tmp_path / "c.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "write a.txt")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the dialog")
            await _typed(pilot, "make a change also")
            await until_armed(pilot)
            await _typed(pilot, " queued 1 2 3")  # typed fast: the digits are text too
            await pilot.press("enter")  # the end of the sentence: no choice since the typing
            assert isinstance(app.screen, ApprovalScreen)
            assert not (workspace / "a.txt").exists()
            assert app.view.prompt.text == "make a change also queued 1 2 3"
            assert "Your typing went to your message" in screen_text(app)
            await until_armed(pilot)
            await pilot.press("1", "enter")  # now a deliberate choice
            await settle(pilot)
            assert (workspace / "a.txt").read_text() == "x\n"
            assert app.view.prompt.text == "make a change also queued 1 2 3"

    async def test_escape_denies_at_once(self, server, workspace, tmp_path):
        server.enqueue(WRITE, Reply(text="ok"))
        app = make_app(make_config(server, tmp_path / "e.db"), workspace)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await send(pilot, "write a.txt")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the dialog")
            await pilot.press("escape")
            await settle(pilot)
        assert not (workspace / "a.txt").exists()

    async def test_the_choices_are_numbered_at_80x24(self, server, workspace, tmp_path):
        server.enqueue(WRITE, Reply(text="ok"))
        app = make_app(make_config(server, tmp_path / "n.db"), workspace)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await send(pilot, "write a.txt")
            await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the dialog")
            text = screen_text(app)
            for label in ("1 Allow once", "2 This session", "3 Always", "4 Deny", ", Enter", "Esc denies"):
                assert label in text, label
            await pilot.press("escape")
            await settle(pilot)


HOOKED = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch HOOK"}]}]}}'
PROJECT = '[tools]\nallow = ["bash"]\n' + "".join(
    f'[mcp.servers.s{n}]\ncommand = "server-number-{n}"\nargs = ["--port", "{n}"]\n' for n in range(14)
)


def _untrusted_folder(workspace):
    (workspace / ".agent-tui.toml").write_text(PROJECT)
    (workspace / ".claude").mkdir()
    (workspace / ".claude/settings.json").write_text(HOOKED)


class TestTrustDialog:
    def test_buttons_and_keys_on_screen_at_80x24(self, snap_compare):
        """Issue 43 Medium 2: the buttons were below the screen and nothing said which key."""
        from pathlib import Path

        enables = (
            "[tools] allow",
            *(f"[mcp.servers.s{n}] (runs server-number-{n} --port {n})" for n in range(14)),
            ".claude/settings.json SessionStart hook (runs touch HOOK)",
        )

        class Question(Host):
            def on_mount(self) -> None:
                self.push_screen(TrustScreen(Path("/home/me/src/cloned-repo"), enables))

        assert snap_compare(Question(), terminal_size=(80, 24))

    async def test_typing_never_answers_and_not_now_leaves_one_short_line(self, server, workspace, tmp_path):
        """A sentence typed as the question opens (`...it now`: the n and t of the old keys)
        answers nothing; Not now (2, Enter) then leaves one short notice (Medium 7: ~20 rows
        covered the meter and the input at 80×24)."""
        _untrusted_folder(workspace)
        app = trusting_app(server, workspace, tmp_path / "q.db")
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TrustScreen), timeout=60, what="the question")
            await until(pilot, lambda: "1 Trust" in screen_text(app), what="the question drawn")
            text = screen_text(app)
            assert "1 Trust" in text and "2 Not now" in text and "Enter" in text
            await _typed(pilot, "trust it now")
            await pilot.press("enter")
            assert isinstance(app.screen, TrustScreen)
            await until_armed(pilot)
            await pilot.press("2", "enter")
            await until(pilot, lambda: not isinstance(app.screen, TrustScreen), what="the answer")
            await settle(pilot)
            assert app.view.prompt.text == "trust it now"
            shown = [line for line in notices(app).splitlines() if "ignored" in line]
            assert len(shown) == 1 and len(shown[0]) < 160, shown
            assert "more" in shown[0] and "agent-tui trust add" in shown[0]
        assert trust.state(workspace) == "untrusted"
        assert not (workspace / "HOOK").exists()

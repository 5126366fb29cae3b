"""Issue 45 #5: a notification when a turn ends or an approval waits while the terminal is not
focused — OSC 9, OSC 777 or a bell as `[ui] notify` says, off by default inside tmux. The real
app (Textual's AppBlur / AppFocus), the local fake server; what is written to the terminal is
collected where the driver would get it."""

from __future__ import annotations

from textual import events

from agent_tui.frontends.tui.attention import chosen, sequence
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import make_config
from tests.support.ui_helpers import make_app, send, settle, until, until_approval


class TestSequences:
    def test_each_method_spells_its_sequence(self):
        assert sequence("osc9", "agent-tui", "tab 1: turn finished", tmux=False) == (
            "\x1b]9;agent-tui: tab 1: turn finished\x07"
        )
        assert sequence("osc777", "agent-tui", "done", tmux=False) == "\x1b]777;notify;agent-tui;done\x07"
        assert sequence("bell", "a", "b", tmux=False) == "\x07"
        assert sequence("off", "a", "b", tmux=False) == ""

    def test_text_cannot_end_the_sequence_early(self):
        sent = sequence("osc777", "x", "evil\x07\x1b]52;c;AAAA;more", tmux=False)
        assert sent.count("\x07") == 1 and "\x1b]52" not in sent

    def test_auto_is_off_in_tmux_and_a_chosen_method_passes_through(self):
        assert chosen("auto", {}) == "osc9"
        assert chosen("auto", {"TMUX": "/tmp/tmux-0/default,1,0"}) == "off"
        wrapped = sequence("osc9", "a", "b", tmux=True)
        assert wrapped.startswith("\x1bPtmux;\x1b\x1b]9;") and wrapped.endswith("\x1b\\")


def app_with(server, workspace, tmp_path, notify: str, **sections):
    config = make_config(server, tmp_path / "n.db", cwd=workspace, ui={"notify": notify}, **sections)
    app = make_app(config, workspace)
    written: list[str] = []
    app.attention.write = written.append
    return app, written


class TestInTheApp:
    async def test_a_turn_ending_while_unfocused_notifies(self, server, workspace, tmp_path, monkeypatch):
        monkeypatch.delenv("TMUX", raising=False)
        server.enqueue(Reply(text="first"), Reply(text="second"))
        app, written = app_with(server, workspace, tmp_path, "osc777")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(events.AppBlur())
            await until(pilot, lambda: not app.attention.focused, what="the blur")
            await send(pilot, "hello")
            await until(pilot, lambda: written, what="the notification")
            assert written == ["\x1b]777;notify;agent-tui;hello: turn finished\x07"]
            app.post_message(events.AppFocus())
            await until(pilot, lambda: app.attention.focused, what="the focus")
            await send(pilot, "again")
            await until(pilot, lambda: len(server.requests) >= 2 and not app.view.busy, what="the turn")
            assert len(written) == 1  # focused: nothing sent

    async def test_an_approval_waiting_while_unfocused_notifies(
        self, server, workspace, tmp_path, monkeypatch
    ):
        monkeypatch.delenv("TMUX", raising=False)
        server.enqueue(Reply(tool_calls=[("bash", {"command": "touch x"})]), Reply(text="ok"))
        app, written = app_with(server, workspace, tmp_path, "auto", sandbox={"mode": "off"})
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(events.AppBlur())
            await until(pilot, lambda: not app.attention.focused, what="the blur")
            await send(pilot, "go")
            await until_approval(pilot)
            await until(pilot, lambda: written, what="the notification")
            assert written[0].startswith("\x1b]9;agent-tui: ") and "approve bash?" in written[0]
            await pilot.press("escape")

    async def test_auto_sends_nothing_inside_tmux(self, server, workspace, tmp_path, monkeypatch):
        monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
        server.enqueue(Reply(text="first"))
        app, written = app_with(server, workspace, tmp_path, "auto")
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(events.AppBlur())
            await until(pilot, lambda: not app.attention.focused, what="the blur")
            await send(pilot, "hello")
            await until(pilot, lambda: server.requests and not app.view.busy, what="the turn")
            await settle(pilot)
        assert written == []

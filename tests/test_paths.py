"""How paths are shown to the user."""

from __future__ import annotations

from agent_tui.runtime import paths


class TestShown:
    def test_home_becomes_tilde(self, tmp_path, monkeypatch):
        """Paths under HOME read `~/…`; HOME itself is `~`; others are unchanged."""
        home = tmp_path / "al"
        monkeypatch.setenv("HOME", str(home))
        assert paths.shown(home / "proj" / "x.py") == "~/proj/x.py"
        assert paths.shown(home) == "~"
        assert paths.shown("/srv/data") == "/srv/data"

    def test_a_sibling_sharing_the_prefix_is_not_home(self, tmp_path, monkeypatch):
        """/home/al is not the home of /home/alice/…."""
        monkeypatch.setenv("HOME", str(tmp_path / "al"))
        assert paths.shown(tmp_path / "alice" / "x") == str(tmp_path / "alice" / "x")

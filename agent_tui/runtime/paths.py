"""Where agent-tui keeps its files.

Every location is a function (never computed at import time) so tests can point the whole tree
somewhere else with one variable, `AGENT_TUI_HOME`, and nothing touches the real home directory.
"""

from __future__ import annotations

import os
from pathlib import Path

# The project files' names are declared in project_layout; paths hands them on.
from agent_tui.policy.project_layout import CONFIG_NAME as CONFIG_NAME
from agent_tui.policy.project_layout import LOCAL_CONFIG_NAME as LOCAL_CONFIG_NAME

APP_NAME = "agent-tui"
HOME_ENV = "AGENT_TUI_HOME"


def _override_root() -> Path | None:
    root = os.environ.get(HOME_ENV)
    return Path(root).expanduser() if root else None


def config_dir() -> Path:
    """Folder holding `config.toml`, memories and skills."""
    root = _override_root()
    if root:
        return root / "config"
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    """Folder holding the SQLite database (sessions, transcripts, blobs)."""
    root = _override_root()
    if root:
        return root / "data"
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def state_dir() -> Path:
    """Folder holding the log file."""
    root = _override_root()
    if root:
        return root / "state"
    import platformdirs

    return Path(platformdirs.user_state_dir(APP_NAME))


def user_config_file() -> Path:
    return config_dir() / "config.toml"


def project_config_file(cwd: Path | None = None) -> Path:
    return (cwd or Path.cwd()) / CONFIG_NAME


def local_config_file(cwd: Path | None = None) -> Path:
    """The project's own-machine settings (what "Always allow" writes), kept out of git: the
    `.claude/settings.local.json` of agent-tui. Read after `.agent-tui.toml`, under the same trust."""
    return (cwd or Path.cwd()) / LOCAL_CONFIG_NAME


def default_db_path() -> Path:
    return data_dir() / "agent-tui.db"


def log_file() -> Path:
    return state_dir() / "agent-tui.log"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` readable by the user alone: tool outputs and transcripts often hold secrets."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def shown(path: Path | str) -> str:
    """A path as the user reads it: under the home directory, `~/…`."""
    home = str(Path.home())
    text = str(path)
    if text == home or text.startswith(home.rstrip("/") + "/"):
        return "~" + text[len(home.rstrip("/")) :]
    return text

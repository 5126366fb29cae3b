"""Typed settings merged from layers: user file, project files, environment, CLI flags.

Later layers win. Every key is declared once, with its type, default, range or choices and help
(config/schema.py); `config.example.toml` and the README's key table are generated from those
declarations (`make docs`). A malformed file, an unknown key, a wrong type or a value out of its
range is a `ConfigError` whose one line names the file, the key and what was expected, so the
CLI can print it instead of a traceback.

The package: `spec` (what a field declares), `schema` (the sections), `coerce` (TOML values into
the types), `checks` (the one validation pass), `layers` (the trust-aware merge) and
`sandbox_policy` (what a project may say about the sandbox). The names below are the ones the
rest of the program imports from `agent_tui.config`.
"""

from __future__ import annotations

# Defined apart so hooks/sources.py can use them without this package; most callers know them as config's.
from agent_tui.base.toml_files import ConfigError as ConfigError
from agent_tui.base.toml_files import read_toml as read_toml
from agent_tui.config.coerce import flatten as flatten
from agent_tui.config.layers import LoadedConfig as LoadedConfig
from agent_tui.config.layers import config_files as config_files
from agent_tui.config.layers import load_config as load_config
from agent_tui.config.schema import AgentSettings as AgentSettings
from agent_tui.config.schema import AgentsSettings as AgentsSettings
from agent_tui.config.schema import CompactionSettings as CompactionSettings
from agent_tui.config.schema import Config as Config
from agent_tui.config.schema import HooksSettings as HooksSettings
from agent_tui.config.schema import LoopSettings as LoopSettings
from agent_tui.config.schema import McpSettings as McpSettings
from agent_tui.config.schema import ModelSettings as ModelSettings
from agent_tui.config.schema import Provenance as Provenance
from agent_tui.config.schema import ProviderSettings as ProviderSettings
from agent_tui.config.schema import SandboxSettings as SandboxSettings
from agent_tui.config.schema import StoreSettings as StoreSettings
from agent_tui.config.schema import ToolOutputSettings as ToolOutputSettings
from agent_tui.config.schema import ToolsSettings as ToolsSettings
from agent_tui.config.schema import UISettings as UISettings

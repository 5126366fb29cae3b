"""agent-tui: a terminal agent shell whose edge is context management."""

__version__ = "0.4.0.dev0"

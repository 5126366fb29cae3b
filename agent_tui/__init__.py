"""agent-tui: a terminal agent shell whose edge is context management."""

__version__ = "0.1.0"

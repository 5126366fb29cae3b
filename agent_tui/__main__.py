"""`python -m agent_tui` runs the same CLI as the `agent-tui` script."""

from agent_tui.cli import main

main()

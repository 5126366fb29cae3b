"""`python -m agent_tui` runs the same entry as the `agent-tui` script."""

from agent_tui.entry import main

main()

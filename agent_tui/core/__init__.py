"""The core below every front end: the one slash-command registry and its effects, the typed
operations a session is driven by, and the values a front end renders. The TUI (ui/), the editor
protocol (acp/), headless `run` and the server only map input to these and render what comes back.
"""

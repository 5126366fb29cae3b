"""`agent-tui serve`: the core as a server. Sessions over HTTP, operations in as JSON, events out
as a numbered Server-Sent Events stream a client resumes from the last id it saw. It speaks the
protocol of core/ops.py and core/protocol_events.py and nothing else. Nothing here is imported
by the TUI or `run` (the HTTP server library loads only for `serve`); client.py is the typed
client scripts and tests use.
"""

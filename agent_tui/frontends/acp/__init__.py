"""`agent-tui acp`: agent-tui as an Agent Client Protocol agent, for editors.

The editor is a third consumer of the agent's event stream, beside the TUI and headless `run`:
this package translates turn events into ACP `session/update` notifications and our approver
into `session/request_permission` requests. Sessions come from the same factory, store, trust
and sandbox as everywhere else, so a session started in the editor resumes in the TUI and back.
The protocol plumbing (JSON-RPC, schema) is the `agent-client-protocol` SDK's.
"""

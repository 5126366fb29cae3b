"""What the user allows: folder trust, approval rules, permission modes and Claude Code's rules."""

"""Modal screens: approvals, the session picker, /context, help and confirmations."""

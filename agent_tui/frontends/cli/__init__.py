"""Typer sub-commands, one module each. Modules import only typer at the top: heavy parts
(litellm, textual, the store) load inside the command that needs them, so `--help` stays fast."""

"""Widgets of the main screen: chat pane, context meter, prompt, and the per-tab session view."""

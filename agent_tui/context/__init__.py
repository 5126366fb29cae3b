"""Context management policy: budget, prompt layout, views, compaction, deferral.

Pure code: no Textual, no rich, no litellm (enforced by tests/test_layers.py).
"""

"""Everything the tests share: fixtures, scripted models, drivers for the CLI, the TUI and the sandbox.

A `test_*.py` module holds tests only and imports its helpers from here, never from another
test module (tests/test_test_layout.py checks it), so a test file can be moved, renamed or
run alone without dragging another file's tests into the collection.
"""

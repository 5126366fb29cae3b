"""The one place litellm is imported, always lazily (it costs ~1.7 s and fetches a price map
unless told not to).

Importing this package also keeps httpx from loading its command-line client: httpx's
`__init__` imports `httpx._main` whenever click and rich are installed (litellm and typer bring
both), which pulls in rich.syntax and pygments — ~0.13 s of CPU before the first request, for a
program we never run. A `None` in `sys.modules` makes that import fail the way httpx expects when
its CLI extras are missing (it then defines a `main` that says so). Every httpx import of ours,
and litellm's, comes through this package, so this runs first.
"""

import sys

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    # typeshed types sys.modules as modules only; None is the import system's documented block.
    sys.modules["httpx._main"] = None  # type: ignore[assignment]

"""The one place litellm is imported, always lazily (it costs ~1.7 s and fetches a price map
unless told not to).

Importing this package also keeps two parts of the HTTP stack we never use from loading:
- httpx's command-line client: httpx's `__init__` imports `httpx._main` whenever click and rich
  are installed (litellm and typer bring both), which pulls in rich.syntax and pygments — ~0.13 s
  of CPU before the first request, for a program we never run.
- HTTP/2: httpcore imports its HTTP/2 connection, and with it h2, hpack and hyperframe (~0.1 s of
  CPU, dozens of dataclasses and enums), whenever h2 is installed (litellm's extras bring it). No
  client of ours asks for `http2=True`; one that did would get httpx's own "the 'h2' package is
  not installed" error.
A `None` in `sys.modules` makes each import fail the way httpx and httpcore expect when those
extras are missing (each then defines a stand-in that says so). Every httpx import of ours, and
litellm's, comes through this package, so this runs first.
"""

import sys

# typeshed types sys.modules as modules only; None is the import system's documented block.
if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    sys.modules["httpx._main"] = None  # type: ignore[assignment]
if "httpcore" not in sys.modules and "h2" not in sys.modules:
    sys.modules["h2"] = None  # type: ignore[assignment]

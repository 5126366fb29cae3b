"""One lock for the background imports of packages that share httpx and httpcore.

litellm's import (llm/lazy.py) and the HTTP client's (llm/http_common.py `warm`) both run in
threads of their own while the app starts, and both import httpx, httpcore and anyio. httpcore's
package imports its own modules in a cycle; two threads entering it at once through different
modules made CPython's per-module import locks see a deadlock and raise `_DeadlockError` in one of
them ("deadlock detected by _ModuleLock('httpcore._async')"), or leave it a half-made module
(`KeyError: 'httpcore'`): about one headless `run` in 25 on the litellm path failed so. Taken by
both, the second waits for the first to finish instead.
"""

from __future__ import annotations

import threading

HEAVY_IMPORTS = threading.RLock()
"""Held while litellm or httpx (and what their first use imports) is being imported."""

"""The packages loaded in background threads at start-up are imported one thread at a time.

Found by running benchmarks/startup.py: about one headless `run` in 25 on the litellm path
failed with "deadlock detected by _ModuleLock('httpcore._async')" (or `KeyError: 'httpcore'`):
litellm's import and the HTTP client's warm-up, each in its own thread, entered httpcore's
circular package at two different modules at once. A race shows itself rarely, so this pins the
rule that rules it out — both take llm/import_lock.py's lock — in a fresh interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import sys, threading
    from agent_tui.llm import http_common, lazy
    from agent_tui.llm.import_lock import HEAVY_IMPORTS

    with HEAVY_IMPORTS:  # held: neither background import may start its work
        http_common.preload()
        lazy.warm_in_background()
        threads = [t for t in threading.enumerate() if t.name in ("httpx-preload", "litellm-import")]
        assert len(threads) == 2, threads
        for thread in threads:
            thread.join(0.2)
        assert all(t.is_alive() for t in threads), "an import ran while the lock was held"
        assert "httpx" not in sys.modules and "litellm" not in sys.modules
    for thread in threads:
        thread.join(120)
    assert "httpx" in sys.modules and "litellm" in sys.modules, "both loaded once it was free"
    assert http_common._ssl, "the HTTP client's warm-up finished"
    print("ok")
    """
)


def test_litellm_and_httpx_are_imported_one_thread_at_a_time(tmp_path):
    """With the lock held, both background imports wait; released, both finish."""
    env = {**os.environ, "AGENT_TUI_HOME": str(tmp_path), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=180, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"

"""Tool arguments that are hard to show safely in an approval: an edit diff, escapes, newlines."""

from __future__ import annotations

ESCAPED = "touch PWNED; \x1b[2K\x1b[1G ls -la"


NEWLINES = "ls -la" + "\n" * 20 + "touch PWNED"


EDIT_DIFF = (
    "--- a/src/app.py\n+++ b/src/app.py\n@@ -3,7 +3,7 @@\n"
    " import os\n import sys\n \n-DEBUG = False\n+DEBUG = True\n \n def main():\n     run()\n"
)

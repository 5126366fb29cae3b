"""Loading the config hashes a trusted folder's files once, however many layers ask about its
trust (the project file, the local file, the sub-agent definitions): with a skill vendoring
thousands of files each hash cost ~240 ms of every start. The answer lives for that one load,
so a file edited before the next load still asks again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]

PROBE = """
import collections, json, sys
from pathlib import Path
folder = Path(sys.argv[1])
opened = collections.Counter()
def audit(event, args):
    if event == "open" and isinstance(args[0], str) and "/.claude/skills/" in args[0]:
        opened[args[0]] += 1
from agent_tui.compose.rule_words import SHIPPED_WORDS
from agent_tui.policy import trust
from agent_tui.config import load_config
if sys.argv[2] == "trust":
    trust.add(folder)
sys.addaudithook(audit)
loaded = load_config(cwd=folder, env={}, rule_words=SHIPPED_WORDS)
print(json.dumps({"trust": loaded.trust, "reads": max(opened.values(), default=0),
                  "files": len(opened)}))
"""


def load_in_a_fresh_process(folder: Path, home: Path, trust_first: bool) -> dict:
    """One start's config load in its own interpreter, with every open of a skill file counted."""
    env = {**os.environ, "AGENT_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(folder), "trust" if trust_first else "-"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def project(root: Path) -> Path:
    """A trusted-looking project: both project files and a skill that vendors a few files."""
    folder = root / "proj"
    skill = folder / ".claude" / "skills" / "big"
    (skill / "vendor").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: big\ndescription: d\n---\nbody\n")
    for i in range(20):
        (skill / "vendor" / f"f{i}.py").write_text(f"x = {i}\n")
    (folder / ".agent-tui.toml").write_text('[tools]\nallow = ["bash:ls"]\n')
    (folder / ".agent-tui.local.toml").write_text('[tools]\nallow = ["bash:pwd"]\n')
    return folder


class TestTrustHashedOncePerLoad:
    def test_a_trusted_folder_is_hashed_once_per_config_load(self, tmp_path):
        """With both project files and a skill, one load reads each skill file once (it read
        them three times: once per layer and once for the sub-agent definitions)."""
        folder = project(tmp_path)
        seen = load_in_a_fresh_process(folder, tmp_path / "home", trust_first=True)
        assert seen["trust"] == "trusted"
        assert seen["files"] == 21
        assert seen["reads"] == 1

    def test_an_edit_before_the_next_load_still_asks_again(self, tmp_path):
        """The answer does not outlive its load: a skill file edited after trusting makes the next
        start see the folder as changed."""
        folder = project(tmp_path)
        home = tmp_path / "home"
        assert load_in_a_fresh_process(folder, home, trust_first=True)["trust"] == "trusted"
        (folder / ".claude" / "skills" / "big" / "vendor" / "f3.py").write_text("x = 'edited'\n")
        assert load_in_a_fresh_process(folder, home, trust_first=False)["trust"] == "changed"

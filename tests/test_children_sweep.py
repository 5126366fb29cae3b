"""The exit sweep still finds a command's process that left its group (`setsid`) by the token in
its environment, now that it reads only processes younger than agent-tui (issue 31: the exit
path read every process's environment)."""

from __future__ import annotations

import os
import subprocess

from agent_tui.runtime import children


class TestSweep:
    def test_a_setsid_process_carrying_the_token_is_killed(self):
        """A process in a session of its own, started with our token, dies in kill_all."""
        children.prepare()  # a command was started: the sweep has something to look for
        escaped = subprocess.Popen(
            ["sleep", "300"], env={**os.environ, **children.owner_env()}, start_new_session=True
        )
        bystander = subprocess.Popen(["sleep", "300"], start_new_session=True)
        try:
            children.kill_all()
            assert escaped.wait(timeout=10) == -9
            assert bystander.poll() is None  # no token: left alone
        finally:
            for proc in (escaped, bystander):
                proc.kill()
                proc.wait()

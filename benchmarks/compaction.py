"""Compaction on a long, real session: what each strategy frees, how fast, what it keeps.

Builds a 1 500-message session by doing real work over a copy of installed packages' sources
(reading files, grepping with `grep`, running `python -m pytest --co -q` and small commands,
editing files) and recording each result the way the loop does: the model sees a view (head,
tail, footer naming the ref, via `agent_tui.context.views.inline_view`), the whole output goes to
a dict standing in for the blob store. Facts are planted in the chat (a user's decision, an
assistant's finding, a file path) and in tool outputs (a file read, a grep hit, a command's
output), all early, so compaction has to carry them.

Then each strategy alone, the chain without a model, and the chain with a deterministic local
summariser (extractive: it keeps sentences naming decisions, findings and paths) run against a
200k-window target. The transcript is stored in a real store (temp SQLite file), as the loop
stores it, so each compaction names the range it dropped. Reported: tokens before/after, time
(median of 5, warm token cache as in the loop), planted facts recoverable from the new history —
present verbatim, in an output reachable by a ref it names, or in a transcript range it names
(`m_a-b`, read back through the store) — and, apart, how many are still verbatim in context.
A second table counts the tool calls a reasonable scripted model needs to get each fact back
after each strategy, using only what the compacted history shows it: 0 when the fact is in
context; 1 when a line of the history labels a ref with the question's words (grep_result on it),
or when `recall` (the real tool, over the stored transcript) quotes it; 2 when a recall hit names
an output ref or a message range that holds it (grep_result / read_result); `-` when that
trail does not reach it. (The outputs here are kept in a dict, not the store, so recall's hits on
output text are not counted: a call's hit naming its output is.)
Baselines in the same run: the 50 ms goal for the chain without a model, and one cold token
count of the whole history.

Run: `.venv/bin/python benchmarks/compaction.py`
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from agent_tui.base.messages import Message, ResultRef, ToolCall
from agent_tui.base.tokens import TokenCounter
from agent_tui.config import CompactionSettings
from agent_tui.context.compaction import (
    TranscriptIndex,
    check_invariants,
    collect_refs,
    compact,
    estimate_savings,
)
from agent_tui.context.views import inline_view
from agent_tui.store import Store, open_store

PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"
SITE = Path(sys.prefix) / "lib" / PYTHON / "site-packages"
PACKAGES = ("jsonschema", "click", "httpx", "aiosqlite", "typer")
MESSAGES = 1500
WINDOW, MAX_OUTPUT, FIXED = 200_000, 8_000, 12_000
TARGET = int((WINDOW - MAX_OUTPUT) * 0.6)
VIEW_BYTES, LINE_CHARS = 4096, 2000
RUNS = 5
GOAL_MS = 50.0

FACTS_CHAT = {
    "user decision": "retry limit stays at 7 behind the flag --retry-cap-7",
    "assistant finding": "the flaky test comes from _resolve_ref_cache in jsonschema/validators.py",
    "file path": "docs/compaction-notes-4417.md",
}
FACTS_TOOL = {
    "file read": "ZETA_SECRET_PORT = 48213",
    "grep hit": "MAGIC_MARKER_9b3f",
    "command output": "build id: BLD-20931",
}
CUES = {
    "user decision": "retry limit",
    "assistant finding": "flaky test",
    "file path": "notes",
    "file read": "settings_zeta.py",
    "grep hit": "marker",
    "command output": "build",
}
"""What a later question about each fact would say (its words, never the fact itself): what the
scripted model searches with in the "calls to recover" table."""
GREP_PATTERNS = (
    "def __init__",
    "raise ",
    "import re",
    "async def",
    "return None",
    "class .*Error",
    "TODO",
    "@property",
    "yield",
    "isinstance(",
)


class Session:
    """Runs tools for real in `root` and records them as the loop would."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.messages: list[Message] = []
        self.blobs: dict[str, str] = {}
        self.files = sorted(p for p in root.rglob("*.py") if p.stat().st_size > 200)
        self.subprocesses = 0

    def rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))

    def user(self, text: str) -> None:
        self.messages.append(Message(role="user", content=text))

    def say(self, text: str) -> None:
        self.messages.append(Message(role="assistant", content=text))

    def record(self, name: str, args: dict, output: str, paged: bool = False) -> None:
        call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=name, arguments=json.dumps(args))
        ref_id = f"r_{uuid.uuid4().hex[:10]}"
        self.blobs[ref_id] = output
        ref = ResultRef(ref_id, len(output.encode()), output.count("\n") + 1, name)
        view = output if paged else inline_view(output, VIEW_BYTES, LINE_CHARS, name, ref_id)
        self.messages.append(Message(role="assistant", content=None, tool_calls=(call,)))
        self.messages.append(
            Message(role="tool", content=view, tool_call_id=call.id, name=name, output_ref=ref)
        )

    def run(self, command: list[str], shown: str) -> None:
        self.subprocesses += 1
        done = subprocess.run(
            command,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
        )
        output = done.stdout + done.stderr + f"\nexit code: {done.returncode}"
        self.record("bash", {"command": shown}, output)

    def read(self, path: Path | None = None) -> None:
        path = path or self.rng.choice(self.files)
        lines = path.read_text(errors="replace").splitlines()
        offset = self.rng.randrange(0, max(len(lines) - 60, 1))
        page = "\n".join(
            f"{i + 1:>5}  {line}" for i, line in enumerate(lines[offset : offset + 60], start=offset)
        )
        self.record(
            "read_file", {"path": self.rel(path), "offset": offset + 1, "limit": 60}, page, paged=True
        )

    def grep(self, pattern: str | None = None) -> None:
        pattern = pattern or self.rng.choice(GREP_PATTERNS)
        package = self.rng.choice(PACKAGES)
        self.subprocesses += 1
        done = subprocess.run(
            ["grep", "-rn", "--include=*.py", pattern, package],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.record("grep", {"pattern": pattern, "path": package}, done.stdout or "(no matches)")

    def edit(self) -> None:
        path = self.rng.choice(self.files)
        text = path.read_text(errors="replace")
        path.write_text(text + "\n# reviewed during the benchmark session\n")
        self.record(
            "edit_file",
            {
                "path": self.rel(path),
                "old_string": "",
                "new_string": "# reviewed during the benchmark session",
            },
            f"Edited {self.rel(path)}: 1 line added",
        )

    def missing(self) -> None:
        self.record(
            "read_file", {"path": "src/does_not_exist.py"}, "Error: no such file: src/does_not_exist.py"
        )

    def command(self) -> None:
        choice = self.rng.random()
        package = self.rng.choice(PACKAGES)
        if choice < 0.4:
            self.run(["ls", "-la", package], f"ls -la {package}")
        elif choice < 0.8:
            target = self.rel(self.rng.choice(self.files))
            self.run(["wc", "-l", target], f"wc -l {target}")
        else:
            target = self.rel(self.rng.choice(self.files))
            self.run(["head", "-n", "40", target], f"head -n 40 {target}")


def build_session(root: Path) -> Session:
    rng = random.Random(42)
    s = Session(root, rng)
    planted = root / "planted" / "settings_zeta.py"
    planted.parent.mkdir()
    planted.write_text("# service settings\nHOST = 'localhost'\n" + FACTS_TOOL["file read"] + "\n")
    marker_file = s.files[len(s.files) // 2]
    marker_file.write_text(marker_file.read_text() + f"\n# {FACTS_TOOL['grep hit']}\n")
    pytest_runs = 0
    turn = 0
    while len(s.messages) < MESSAGES - 2:
        turn += 1
        if turn == 2:
            s.user(f"Decision: the {FACTS_CHAT['user decision']}. Now check the settings module.")
            s.read(planted)
        elif turn == 4:
            s.user(f"Put the notes in {FACTS_CHAT['file path']} when we are done. Grep for the marker.")
            s.grep(FACTS_TOOL["grep hit"])
        elif turn == 5:
            s.user("What build are we on?")
            s.run(
                [sys.executable, "-c", "print('" + FACTS_TOOL["command output"] + "')"],
                "python -c 'print(build id)'",
            )
        else:
            s.user(f"Request {turn}: look into {rng.choice(PACKAGES)} and tidy what you find.")
        for _ in range(rng.randint(6, 12)):
            pick = rng.random()
            if pick < 0.4:
                s.read()
            elif pick < 0.6:
                s.grep()
            elif pick < 0.75:
                s.command()
            elif pick < 0.9:
                s.edit()
            elif pick < 0.95:
                s.missing()
            elif pytest_runs < 4:
                pytest_runs += 1
                s.run(
                    [
                        sys.executable,
                        "-m",
                        "pytest",
                        "--co",
                        "-q",
                        "-p",
                        "no:cacheprovider",
                        "jsonschema/tests/test_types.py",
                    ],
                    "python -m pytest --co -q jsonschema/tests",
                )
            else:
                s.read()
        if turn == 3:
            s.say(f"Finding: {FACTS_CHAT['assistant finding']}.")
        else:
            s.say(f"Done with request {turn}: nothing surprising in the files I read.")
    s.user("Now write up what we learned.")
    return s


async def extractive(messages: list[Message], instructions: str, max_tokens: int) -> str:
    """A deterministic local summariser: keeps sentences naming decisions, findings or paths,
    and the first words of each request; cut to the reply limit."""
    path = re.compile(r"\b[\w./-]+\.(?:py|md|toml|txt|json)\b")
    keep: list[str] = []
    asks: list[str] = []
    for m in messages:
        if m.role not in ("user", "assistant") or not m.content or m.kind != "chat":
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", m.content):
            if re.search(r"(?i)\b(decision|decided|finding|found|must|remember)\b", sentence) or (
                m.role == "user" and path.search(sentence)
            ):
                keep.append(sentence.strip())
        if m.role == "user":
            asks.append(m.content[:60])
    retain = "\n".join(dict.fromkeys(keep))[: max_tokens * 2]
    summary = f"The user made {len(asks)} requests, the last ones: " + "; ".join(asks[-5:])
    return f"<retain>\n{retain}\n</retain>\n<summary>\n{summary[: max_tokens * 2]}\n</summary>"


extractive.model = "local/extractive"  # type: ignore[attr-defined]  # summarisers may name their model


class Transcript:
    """The session's transcript in a real store: where compaction's ranges are read back."""

    def __init__(self, store: Store, session_id: str, index: TranscriptIndex) -> None:
        self.store = store
        self.session_id = session_id
        self.index = index

    async def holds(self, history: list[Message], fact: str) -> bool:
        """A transcript range the history names holds `fact` (read through the store's grep)."""
        for first, last in {(int(a), int(b)) for a, b in RANGE.findall(history_text(history))}:
            found = await self.store.transcript.grep(
                f"m_{first}-{last}", re.escape(fact), session_id=self.session_id
            )
            if not found.startswith("[no message"):
                return True
        return False


RANGE = re.compile(r"\bm_(\d+)-(\d+)\b")


def history_text(history: list[Message]) -> str:
    return "\n".join(
        [m.content or "" for m in history] + [c.arguments for m in history for c in m.tool_calls]
    )


async def facts_kept(
    history: list[Message], blobs: dict[str, str], transcript: Transcript
) -> tuple[int, int, list[str]]:
    """(recoverable, verbatim in context, lost names)."""
    text = history_text(history)
    refs = collect_refs(history)
    lost = []
    verbatim = 0
    for name, fact in {**FACTS_CHAT, **FACTS_TOOL}.items():
        if fact in text:
            verbatim += 1
            continue
        if any(fact in blobs.get(r, "") for r in refs) or await transcript.holds(history, fact):
            continue
        lost.append(name)
    return len(FACTS_CHAT) + len(FACTS_TOOL) - len(lost), verbatim, lost


REF_ID = re.compile(r"\br_[0-9a-f]{10}\b")


async def calls_to_recover(history: list[Message], fact: str, cue: str, blobs, transcript) -> str:
    """Tool calls the scripted model makes to get `fact` back, asked in the words of `cue`."""
    from agent_tui.tools.base import ToolContext, ToolServices
    from agent_tui.tools.context_tools import Recall

    text = history_text(history)
    if fact in text:
        return "0"
    for line in text.splitlines():
        if cue in line and any(fact in blobs.get(r, "") for r in REF_ID.findall(line)):
            return "1"  # grep_result on the labelled ref
    ctx = ToolContext(
        workspace=Path("/work/bench"),
        session_id=transcript.session_id,
        call_id="bench",
        services=ToolServices(store=transcript.store),
    )
    found = (await Recall().run({"query": cue, "scope": "session"}, ctx)).text
    if fact in found:
        return "1"
    for line in found.splitlines():
        if any(fact in blobs.get(r, "") for r in REF_ID.findall(line)):
            return "2"
        for first, last in RANGE.findall(line):
            page = await transcript.store.transcript.read(
                f"m_{first}-{last}", session_id=transcript.session_id
            )
            if fact in page:
                return "2"
    return "-"


async def measure(label, messages, counter, cfg, blobs, transcript, summarizer=None, target=TARGET):
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        out, result = await compact(
            messages,
            counter=counter,
            settings=cfg,
            target_tokens=target,
            fixed_tokens=FIXED,
            summarizer=summarizer,
            transcript=transcript.index,
        )
        times.append((time.perf_counter() - start) * 1000)
    kept, verbatim, lost = await facts_kept(out, blobs, transcript)
    facts = {**FACTS_CHAT, **FACTS_TOOL}
    calls = [await calls_to_recover(out, facts[name], CUES[name], blobs, transcript) for name in facts]
    problems = check_invariants(messages, out, counter=counter, result=result)
    return {
        "label": label,
        "before": result.tokens_before,
        "after": result.tokens_after,
        "messages": len(out),
        "reached": result.reached_target,
        "ms": statistics.median(times),
        "facts": kept,
        "verbatim": verbatim,
        "lost": lost,
        "ok": not problems,
        "problems": problems,
        "ran": ", ".join(result.strategies) or "-",
        "calls": calls,
    }


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for package in PACKAGES:
            shutil.copytree(SITE / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
        started = time.perf_counter()
        session = build_session(root)
        built = time.perf_counter() - started
    messages, blobs = session.messages, session.blobs
    tools = sum(m.role == "tool" for m in messages)
    print(
        f"session: {len(messages)} messages, {tools} tool results, "
        f"{session.subprocesses} subprocesses, built in {built:.1f} s"
    )

    cold = TokenCounter("gpt-4o")
    start = time.perf_counter()
    total = cold.count_messages(messages)
    cold_ms = (time.perf_counter() - start) * 1000
    counter = TokenCounter("gpt-4o")
    counter.count_messages(messages)  # the loop's counter already knows every message
    print(
        f"conversation: {total:,} tokens + {FIXED:,} fixed; target {TARGET:,} "
        f"(60% of a {WINDOW:,} window less {MAX_OUTPUT:,} reply); cold count {cold_ms:.0f} ms\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = await open_store(Path(tmp) / "bench.db")
        try:
            stored = await store.sessions.create("/work/bench", "m")
            await store.sessions.append(stored.id, messages)
            index = TranscriptIndex.build(await store.transcript.keys(stored.id))
            await report(messages, counter, blobs, Transcript(store, stored.id, index), cold_ms)
        finally:
            await store.close()


async def report(messages, counter, blobs, transcript, cold_ms) -> None:
    off = dict(tool_clearing=False, pruning=False, summarization=False, truncation=False)
    rows = [
        await measure(
            "tool clearing alone",
            messages,
            counter,
            CompactionSettings(**{**off, "tool_clearing": True}),
            blobs,
            transcript,
        ),
        await measure(
            "pruning alone",
            messages,
            counter,
            CompactionSettings(**{**off, "pruning": True}),
            blobs,
            transcript,
        ),
        await measure(
            "summary alone (local)",
            messages,
            counter,
            CompactionSettings(**{**off, "summarization": True}),
            blobs,
            transcript,
            extractive,
        ),
        await measure(
            "truncation alone",
            messages,
            counter,
            CompactionSettings(**{**off, "truncation": True}),
            blobs,
            transcript,
        ),
        await measure("chain, no model", messages, counter, CompactionSettings(), blobs, transcript),
        await measure(
            "chain + local summary", messages, counter, CompactionSettings(), blobs, transcript, extractive
        ),
        await measure(
            "chain, no model, 32k",
            messages,
            counter,
            CompactionSettings(),
            blobs,
            transcript,
            target=FIXED + 20_000,
        ),
        await measure(
            "chain + local summary, 32k",
            messages,
            counter,
            CompactionSettings(),
            blobs,
            transcript,
            extractive,
            target=FIXED + 20_000,
        ),
    ]
    header = (
        f"{'strategy':<28}{'before':>9}{'after':>9}{'msgs':>6}{'target':>8}{'ms':>9}"
        f"{'facts':>7}{'in ctx':>8}  {'invariants':<11}ran"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        facts = f"{r['facts']}/{len(FACTS_CHAT) + len(FACTS_TOOL)}"
        print(
            f"{r['label']:<28}{r['before']:>9,}{r['after']:>9,}{r['messages']:>6}"
            f"{'yes' if r['reached'] else 'no':>8}{r['ms']:>9.1f}{facts:>7}{r['verbatim']:>8}  "
            f"{'ok' if r['ok'] else 'BROKEN':<11}{r['ran']}"
        )
    for r in rows:
        if r["lost"]:
            print(f"  {r['label']}: lost {', '.join(r['lost'])}")
        for p in r["problems"]:
            print(f"  {r['label']}: {p}")

    names = list({**FACTS_CHAT, **FACTS_TOOL})
    print("\ncalls to recover each planted fact (0 = in context, - = not reached in 2 calls):")
    head = f"{'strategy':<28}" + "".join(f"{n:>19}" for n in names)
    print(head)
    print("-" * len(head))
    for r in rows:
        print(f"{r['label']:<28}" + "".join(f"{c:>19}" for c in r["calls"]))

    start = time.perf_counter()
    savings = await estimate_savings(
        messages, counter=counter, settings=CompactionSettings(), target_tokens=TARGET, fixed_tokens=FIXED
    )
    estimate_ms = (time.perf_counter() - start) * 1000
    chain = rows[4]["ms"]
    print(
        f"\nchain without a model: {chain:.1f} ms = {chain / GOAL_MS:.2f}× the "
        f"{GOAL_MS:.0f} ms goal, {chain / cold_ms:.2f}× one cold token count ({cold_ms:.0f} ms)"
    )
    print(
        f"estimate_savings (/context screen): {estimate_ms:.1f} ms; at most freed: "
        + ", ".join(f"{k} {v:,}" for k, v in savings.items())
    )


if __name__ == "__main__":
    asyncio.run(main())

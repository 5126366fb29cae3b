"""ACP image prompt blocks (issue 34's prompt content types, issue 32's images): advertised in
`initialize`, taken as the same attachment as `@shot.png`, sent to the model as an image part."""

from __future__ import annotations

import asyncio
import base64

from acp import image_block, text_block

from testkit.fake_openai import Reply
from tests.support.acp_client import WAIT, open_agent
from tests.support.images import png


class TestEditorImages:
    async def test_image_block_reaches_the_model(self, server, workspace, tmp_path):
        """`initialize` says images are accepted; an image block goes out as an image_url part."""
        data = png(30, 20)
        encoded = base64.b64encode(data).decode()
        server.enqueue(Reply(text="a small grey box"))
        async with open_agent(server, tmp_path / "a.db", workspace) as (conn, _proc, client):
            init = await asyncio.wait_for(conn.initialize(protocol_version=1), WAIT)
            assert init.agent_capabilities.prompt_capabilities.image is True
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            blocks = [text_block("what is this?"), image_block(encoded, "image/png")]
            done = await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=blocks), WAIT)
            assert done.stop_reason == "end_turn"
            said = client.text()
        assert "not supported" not in said
        sent = server.requests[0]["messages"][-1]["content"]
        assert sent[0] == {"type": "text", "text": "what is this?"}
        assert sent[1] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}

    async def test_bad_image_data_is_one_notice(self, server, workspace, tmp_path):
        """An image block whose data is not base64 gets one line; the text is still sent."""
        server.enqueue(Reply(text="ok"))
        async with open_agent(server, tmp_path / "a.db", workspace) as (conn, _proc, client):
            new = await asyncio.wait_for(conn.new_session(cwd=str(workspace), mcp_servers=[]), WAIT)
            blocks = [text_block("look"), image_block("%%% not base64 %%%", "image/png")]
            await asyncio.wait_for(conn.prompt(session_id=new.session_id, prompt=blocks), WAIT)
            said = client.text()
        assert "image-1.png: not attached (its data is not base64)" in said
        assert server.requests[0]["messages"][-1]["content"] == "look"

"""Images in prompts (issue 32, missing 2): `@shot.png` attaches the picture, each provider's
wire carries it in its own format, the budget counts it by the provider's rule, the store keeps
it for resume, and a model without vision gets one notice and the text alone."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest
from rich.console import Console

from agent_tui.agent import events as ev
from agent_tui.base.images import ImageAttachment, dimensions, image_tokens, sniff
from agent_tui.compose.factory import build_services
from agent_tui.core.context_report import build_report
from agent_tui.frontends.tui.screens.context_screen import footer_lines
from agent_tui.frontends.tui.screens.dialogs import component_table
from testkit.fake_anthropic import Reply as AnthropicReply
from testkit.fake_openai import Reply
from tests.support.agent_fixtures import collect, make_config, of_type
from tests.support.anthropic_fixtures import thinking_services
from tests.support.cli import flags, run_cli
from tests.support.images import gif, jpeg, png, webp_vp8x


@pytest.fixture
async def services(server, workspace, tmp_path):
    svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
    yield svc
    await svc.close()


def notices(events) -> list[str]:
    return [e.message for e in of_type(events, ev.Notice)]


def image_parts(message: dict) -> list[dict]:
    content = message["content"]
    return [p for p in content if isinstance(p, dict) and p.get("type") in ("image_url", "image")]


class TestRecognition:
    def test_magic_bytes_and_sizes(self):
        """Each format is known by its magic bytes (not its name) and gives its width and height."""
        for data, media in (
            (png(640, 480), "image/png"),
            (jpeg(640, 480), "image/jpeg"),
            (gif(640, 480), "image/gif"),
            (webp_vp8x(640, 480), "image/webp"),
        ):
            assert sniff(data) == media
            assert dimensions(data, media) == (640, 480)
        assert sniff(b"hello, world") is None

    def test_summary_input_names_the_picture(self):
        """The compaction summary's transcript says a picture was attached (its bytes are not text)."""
        from agent_tui.agent.summarizer import render_transcript
        from agent_tui.base.messages import user

        image = ImageAttachment("shot.png", "image/png", 64, 32, 500, "r_1", b"\x89PNG")
        text = render_transcript([user("look", images=(image,))])
        assert text == "[user]\nlook\n[attached image shot.png, 64x32]"

    def test_provider_rules(self):
        """Anthropic counts w*h/750; OpenAI 85 + 170 per 512-px tile (high detail); others ~1 000."""
        image = ImageAttachment("a.png", "image/png", 1000, 1000, 10)
        assert image_tokens(image, "anthropic") == 1334
        # 1000x1000 scales to 768x768: 2x2 tiles.
        assert image_tokens(image, "openai") == 85 + 170 * 4
        assert image_tokens(image, None) == 1000


class TestOpenAIWire:
    async def test_image_is_sent_as_an_image_url_part(self, server, services, workspace):
        """`@shot.png` goes to the OpenAI-compatible server as text plus an image_url data URL."""
        data = png(64, 32)
        (workspace / "shot.png").write_bytes(data)
        server.enqueue(Reply(text="a grey box"))
        session = await services.new_session()
        events = await collect(session.run_turn("what is in @shot.png?"))
        assert not any("not attached" in n for n in notices(events))
        sent = server.requests[0]["messages"][-1]
        assert sent["content"][0] == {"type": "text", "text": "what is in @shot.png?"}
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        assert image_parts(sent) == [{"type": "image_url", "image_url": {"url": url}}]

    async def test_budget_grows_by_the_openai_estimate(self, server, services, workspace):
        """The measured conversation grows by 85 + 170 per tile, and /context says so under it."""
        (workspace / "shot.png").write_bytes(png(2048, 1024))
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        await collect(session.run_turn("see @shot.png"))
        # 2048x1024 scales to 1536x768 (short side 768): 3x2 tiles.
        expected = 85 + 170 * 6
        without = [replace(m, images=()) if m.images else m for m in session.history]
        grown = (
            session.meter.raw_parts(session.history)["conversation"]
            - session.meter.raw_parts(without)["conversation"]
        )
        assert grown == expected
        report = build_report(session, session.measure())
        assert report.images == (1, expected, "openai")
        footer = footer_lines(report).plain
        assert (
            "Images: 1 in the conversation, 1 105 tokens of it (OpenAI's rule: 85 + 170 per "
            "512-px tile; the provider reports the exact figure)"
        ) in footer
        table = Console(width=100, record=True)
        table.print(component_table(report.budget, report.images[1]))
        assert "of it images" in table.export_text()

    async def test_stored_as_a_blob_and_sent_again_on_resume(self, server, workspace, tmp_path):
        """The transcript keeps a reference to a blob with the bytes; a resumed session resends them."""
        data = png(40, 30)
        (workspace / "shot.png").write_bytes(data)
        config = make_config(server, tmp_path / "a.db")
        server.enqueue(Reply(text="ok"), Reply(text="still ok"))
        svc = await build_services(config, workspace=workspace)
        try:
            session = await svc.new_session()
            await collect(session.run_turn("see @shot.png"))
            sid = session.session_id
            stored = [m for m in await svc.store.sessions.transcript(sid) if m.images]
            assert len(stored) == 1 and stored[0].images[0].data == b""
            ref_id = stored[0].images[0].ref_id
            assert ref_id is not None
            assert await svc.store.results.get_bytes(ref_id, session_id=sid) == data
            assert "base64" not in json.dumps(stored[0].to_json())
        finally:
            await svc.close()
        svc = await build_services(config, workspace=workspace)
        try:
            resumed = await svc.resume_session(sid)
            await collect(resumed.run_turn("and now?"))
        finally:
            await svc.close()
        first_user = next(m for m in server.requests[1]["messages"] if m["role"] == "user")
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        assert image_parts(first_user) == [{"type": "image_url", "image_url": {"url": url}}]

    async def test_too_large_image_gets_one_line(self, server, services, workspace):
        """A picture over 5 MB is refused in one line and the text is sent as typed."""
        (workspace / "big.png").write_bytes(png(8, 8, pad=6 * 1024 * 1024))
        server.enqueue(Reply(text="ok"))
        session = await services.new_session()
        events = await collect(session.run_turn("see @big.png"))
        assert "@big.png: not attached (6.0 MB image; the limit is 5 MB)" in notices(events)
        assert server.requests[0]["messages"][-1]["content"] == "see @big.png"


class TestLitellmWire:
    async def test_litellm_path_passes_openai_parts(self, server, workspace, tmp_path):
        """With `transport = "litellm"` the OpenAI-style image part reaches the server through litellm."""
        data = png(16, 16)
        (workspace / "shot.png").write_bytes(data)
        config = make_config(server, tmp_path / "a.db", provider={"transport": "litellm"})
        svc = await build_services(config, workspace=workspace)
        try:
            server.enqueue(Reply(text="ok"))
            session = await svc.new_session()
            await collect(session.run_turn("see @shot.png"))
        finally:
            await svc.close()
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        parts = image_parts(server.requests[0]["messages"][-1])
        assert [p["image_url"]["url"] for p in parts] == [url]


class TestNoVision:
    async def test_text_only_model_gets_one_notice_and_the_text(self, server, workspace, tmp_path):
        """A model litellm lists without vision: one notice, no image part, the typed text sent."""
        (workspace / "a.png").write_bytes(png(8, 8))
        (workspace / "b.png").write_bytes(png(8, 8))
        config = make_config(server, tmp_path / "a.db", model={"name": "openai/gpt-3.5-turbo"})
        svc = await build_services(config, workspace=workspace)
        try:
            server.enqueue(Reply(text="ok"))
            session = await svc.new_session()
            events = await collect(session.run_turn("compare @a.png and @b.png"))
        finally:
            await svc.close()
        about = [n for n in notices(events) if "images" in n]
        assert about == [
            "@a.png, @b.png: not sent — openai/gpt-3.5-turbo does not accept images "
            "(per litellm's model list); your text is sent."
        ]
        assert server.requests[0]["messages"][-1]["content"] == "compare @a.png and @b.png"


class TestAnthropicWire:
    async def test_image_is_sent_as_a_base64_image_block(self, anthropic, workspace, tmp_path):
        """Against the Anthropic server the picture is an `image` block with its media type."""
        data = png(750, 100)
        (workspace / "shot.png").write_bytes(data)
        anthropic.enqueue(AnthropicReply(text="a wide grey strip"))
        svc = await thinking_services(anthropic, tmp_path / "a.db", workspace, budget=0)
        try:
            session = await svc.new_session()
            await collect(session.run_turn("what is in @shot.png?"))
            sent = next(m for m in session.history if m.images)
            counter = session.meter.counter
            grown = counter.count_message(sent) - counter.count_message(replace(sent, images=()))
        finally:
            await svc.close()
        last = anthropic.requests[0]["messages"][-1]
        # The prompt cache's mark may sit on the last block; it is not part of the picture.
        blocks = [{k: v for k, v in b.items() if k != "cache_control"} for b in image_parts(last)]
        assert blocks == [
            {
                "type": "image",
                "source": {
                    "type": "base64",
                    "media_type": "image/png",
                    "data": base64.b64encode(data).decode(),
                },
            }
        ]
        assert grown == 750 * 100 // 750


class TestResumeOnTextModel:
    async def test_resumed_on_a_text_only_model_sends_a_placeholder(self, server, workspace, tmp_path):
        """A session with a picture, resumed on a model without vision, sends a line in its place."""
        (workspace / "shot.png").write_bytes(png(40, 30))
        server.enqueue(Reply(text="ok"), Reply(text="ok again"))
        svc = await build_services(make_config(server, tmp_path / "a.db"), workspace=workspace)
        try:
            session = await svc.new_session()
            await collect(session.run_turn("see @shot.png"))
            sid = session.session_id
        finally:
            await svc.close()
        text_only = make_config(server, tmp_path / "a.db", model={"name": "openai/gpt-3.5-turbo"})
        svc = await build_services(text_only, workspace=workspace)
        try:
            await collect((await svc.resume_session(sid)).run_turn("and now?"))
        finally:
            await svc.close()
        first_user = next(m for m in server.requests[1]["messages"] if m["role"] == "user")
        assert image_parts(first_user) == []
        assert first_user["content"][-1] == {
            "type": "text",
            "text": "[image shot.png (40x30) was attached here; not sent with this request]",
        }


class TestRunCommand:
    def test_run_attaches_the_image(self, server, workspace, tmp_path):
        """`agent-tui run "look at @shot.png"` sends the picture and says nothing about not attaching."""
        data = png(20, 10)
        (workspace / "shot.png").write_bytes(data)
        server.enqueue(Reply(text="a grey box"))
        out = run_cli(["run", "look at @shot.png", *flags(server, tmp_path / "r.db")], workspace)
        assert out.returncode == 0 and out.stdout == "a grey box\n"
        assert "not attached" not in out.stderr
        url = "data:image/png;base64," + base64.b64encode(data).decode()
        parts = image_parts(server.requests[0]["messages"][-1])
        assert parts == [{"type": "image_url", "image_url": {"url": url}}]

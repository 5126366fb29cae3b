"""ResultStore: offloading outputs whole, views, paged reads, grep, refs and URIs, listings."""

from __future__ import annotations

import pytest

from agent_tui.base.messages import ResultRef
from agent_tui.store import (
    BadPattern,
    BadRef,
    LineRangeError,
    RefNotFound,
    SessionNotFound,
    build_uri,
    open_store,
)


@pytest.fixture
async def store(tmp_path):
    opened = await open_store(tmp_path / "agent.db")
    yield opened
    await opened.close()


@pytest.fixture
async def session(store):
    return await store.sessions.create("/work/project one", "m")


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


async def pieces(data: bytes, size: int):
    for start in range(0, len(data), size):
        yield data[start : start + size]


class TestOffload:
    async def test_str_sizes_and_ref(self, store, session):
        """A str is stored with its byte size, line count, tool and session."""
        ref = await store.results.offload(session.id, "bash", "c1", "héllo\nworld")
        assert (ref.byte_size, ref.line_count, ref.tool_name, ref.session_id) == (12, 2, "bash", session.id)
        assert ref.id.startswith("r_") and len(ref.id) >= 10

    async def test_ids_unique(self, store, session):
        """Every offload gets a distinct ref id."""
        ids = {(await store.results.offload(session.id, "t", None, "x")).id for _ in range(200)}
        assert len(ids) == 200

    async def test_stream_equals_whole(self, store, session):
        """An async iterator of odd-sized pieces stores the same bytes as one bytes value."""
        data = numbered(50_000).encode()
        ref = await store.results.offload(session.id, "bash", "c1", pieces(data, 777))
        assert ref.byte_size == len(data) and ref.line_count == 50_000
        assert await store.results.get_bytes(ref.id) == data

    async def test_binary_and_invalid_utf8_lossless(self, store, session):
        """Binary and invalid UTF-8 come back byte for byte, and show U+FFFD when read."""
        data = b"ok\n\xff\xfe\x00\x01bad \xc3(\n" + bytes(range(256)) * 300
        ref = await store.results.offload(session.id, "cat", "c1", data)
        assert await store.results.get_bytes(ref.id) == data
        streamed = await store.results.offload(session.id, "cat", "c2", pieces(data, 1000))
        assert await store.results.get_bytes(streamed.id) == data
        assert "\ufffd" in (await store.results.read_lines(ref.id, 2, 1))[0]
        assert "\ufffd" in await store.results.view(ref.id, 100, 50)

    async def test_surrogate_escaped_str_restores_bytes(self, store, session):
        """A str decoded with surrogateescape is stored as the original bytes."""
        raw = b"caf\xe9\n"
        ref = await store.results.offload(session.id, "bash", None, raw.decode("utf-8", "surrogateescape"))
        assert await store.results.get_bytes(ref.id) == raw

    async def test_empty_output(self, store, session):
        """An empty output is a valid ref of 0 bytes and 0 lines."""
        ref = await store.results.offload(session.id, "bash", None, b"")
        assert (ref.byte_size, ref.line_count) == (0, 0)
        assert await store.results.view(ref) == "[bash: no output]"
        assert "empty" in await store.results.read(ref.id)

    async def test_unknown_session_refused(self, store):
        """Storing for a session that does not exist is a clear error."""
        with pytest.raises(SessionNotFound):
            await store.results.offload("s_000000000000", "bash", None, "x")

    async def test_failing_stream_leaves_nothing(self, store, session):
        """A producer that fails midway leaves no partial blob behind."""

        async def broken():
            yield b"a" * 200_000
            raise RuntimeError("process died")

        with pytest.raises(RuntimeError):
            await store.results.offload(session.id, "bash", None, broken())
        assert await store.db.fetchone("SELECT count(*) FROM tool_result_blobs") == (0,)
        assert await store.db.fetchone("SELECT count(*) FROM blob_chunks") == (0,)


class TestView:
    async def test_small_output_whole(self, store, session):
        """An output within `size` is shown whole, without footer."""
        ref = await store.results.offload(session.id, "bash", None, "a\nb\n")
        assert await store.results.view(ref, 4096, 2000) == "a\nb"

    async def test_large_output_head_tail_footer(self, store, session):
        """Past `size`, the view keeps head and tail, the omission count and a footer."""
        ref = await store.results.offload(session.id, "pytest", None, numbered(100_000))
        view = await store.results.view(ref, 2048, 2000)
        lines = view.splitlines()
        assert lines[0] == "line 1" and lines[-2] == "line 100000"
        marker = next(line for line in lines if line.startswith("[… "))
        omitted = int(marker[3:].split(" lines")[0].replace(" ", ""))
        assert omitted + len(lines) - 2 == 100_000
        assert f'read_result(ref_id="{ref.id}"' in lines[-1]
        assert f"pytest output: 100000 lines, {ref.byte_size} bytes" in lines[-1]
        assert len(view.encode()) < 2048 + 400

    async def test_long_lines_cut(self, store, session):
        """Every line is cut at max_line_length, including a giant single line."""
        ref = await store.results.offload(session.id, "bash", None, "x" * 500_000 + "\nend\n")
        view = await store.results.view(ref, 4096, 100)
        first = view.splitlines()[0]
        assert first.startswith("x" * 100) and "line cut" in first and len(first) < 130
        assert "end" in view.splitlines()

    async def test_giant_single_lines_skip_their_middle(self, store, session):
        """A 40 MB line is shown cut in the view and in window reads (how fast:
        benchmarks/store.py)."""
        data = b"A" * 40_000_000 + b"\nmiddle\n" + b"Z" * 40_000_000
        ref = await store.results.offload(session.id, "bash", None, data)
        view = await store.results.view(ref, 4096, 100)
        lines = await store.results.read_lines(ref.id, 1, 3, max_line_length=100)
        assert view.splitlines()[:3] == ["A" * 100 + " …[line cut]", "middle", "Z" * 100 + " …[line cut]"]
        assert lines == ["A" * 100 + " …[line cut]", "middle", "Z" * 100 + " …[line cut]"]

    async def test_view_by_ref_object_or_id(self, store, session):
        """view() takes a ResultRef or its id."""
        ref = await store.results.offload(session.id, "bash", None, "q\n")
        assert await store.results.view(ref) == await store.results.view(ref.id) == "q"


class TestRead:
    async def test_numbered_page_with_header_and_footer(self, store, session):
        """read() numbers lines from 1 and says how to read the next page."""
        ref = await store.results.offload(session.id, "bash", None, numbered(1000))
        page = (await store.results.read(ref.id, 10, 3)).splitlines()
        assert page[0] == f"[{ref.id} (bash output): lines 10-12 of 1000]"
        assert page[1:4] == ["10\tline 10", "11\tline 11", "12\tline 12"]
        assert f'read_result(ref_id="{ref.id}", offset=13, limit=3)' in page[4]

    async def test_last_page_says_end(self, store, session):
        """Reading up to the last line ends with `[end of output]`."""
        ref = await store.results.offload(session.id, "bash", None, numbered(5))
        assert (await store.results.read(ref.id, 4, 100)).splitlines()[-1] == "[end of output]"

    async def test_max_bytes_stops_early_and_pages_on(self, store, session):
        """A page stops at max_bytes and the footer continues from the first line not shown."""
        ref = await store.results.offload(session.id, "bash", None, numbered(1000))
        page = (await store.results.read(ref.id, 1, 1000, max_bytes=200)).splitlines()
        shown = len(page) - 2
        assert 5 < shown < 30
        assert f"offset={shown + 1}," in page[-1]

    async def test_out_of_range_is_actionable(self, store, session):
        """Offsets outside the output name the valid range."""
        ref = await store.results.offload(session.id, "bash", None, numbered(10))
        with pytest.raises(LineRangeError, match="has 10 lines; use an offset from 1 to 10"):
            await store.results.read(ref.id, 11, 5)
        with pytest.raises(LineRangeError):
            await store.results.read(ref.id, 0, 5)
        with pytest.raises(LineRangeError, match="limit"):
            await store.results.read(ref.id, 1, 0)
        with pytest.raises(LineRangeError):
            await store.results.read_lines(ref.id, 11, 2)

    async def test_uri_line_range_is_the_default_window(self, store, session):
        """A URI with :L<start>-<end> reads exactly those lines."""
        ref = await store.results.offload(session.id, "bash", None, numbered(100))
        uri = build_uri(session.project, session.id, ref.id, (40, 42))
        page = (await store.results.read(uri)).splitlines()
        assert page[1:4] == ["40\tline 40", "41\tline 41", "42\tline 42"]


class TestReadLines:
    async def test_window_far_into_a_million_lines(self, store, session):
        """Lines 900000-900099 of a 1 000 000-line output come back exactly."""
        data = numbered(1_000_000)
        ref = await store.results.offload(session.id, "bash", None, data)
        got = await store.results.read_lines(ref.id, 900_000, 100)
        assert got == [f"line {i}" for i in range(900_000, 900_100)]

    async def test_window_clipped_at_end(self, store, session):
        """A window past the end returns only the lines that exist."""
        ref = await store.results.offload(session.id, "bash", None, "a\nb\nc")
        assert await store.results.read_lines(ref.id, 2, 10) == ["b", "c"]

    async def test_only_model_reads_update_access_stats(self, store, session):
        """The model's reads (touch=True, as its tools pass) bump the access count and time;
        views, window reads, whole reads and reads without touch (the browser, the CLI) do not."""
        ref = await store.results.offload(session.id, "bash", None, numbered(10))
        await store.results.view(ref)
        await store.results.read_lines(ref.id, 1, 2)
        await store.results.read(ref.id, 1, 2)
        await store.results.grep(ref.id, "line")
        await store.results.get_text(ref.id)
        assert (await store.results.list_blobs())[0].access_count == 0
        await store.results.read(ref.id, 1, 2, touch=True)
        await store.results.grep(ref.id, "line", touch=True)
        info = (await store.results.list_blobs())[0]
        assert info.access_count == 2 and info.last_accessed is not None


class TestGrep:
    async def test_matches_with_numbers(self, store, session):
        """Matching lines come back as `N:line`."""
        text = "ok\nERROR one\nok\nok\nERROR two\n"
        ref = await store.results.offload(session.id, "pytest", None, text)
        out = (await store.results.grep(ref.id, "ERROR")).splitlines()
        assert out[1:] == ["2:ERROR one", "5:ERROR two"]
        assert "2 matching lines" in out[0]

    async def test_context_lines_and_separators(self, store, session):
        """Context lines are `N-line`, non-adjacent groups are split by `--`."""
        ref = await store.results.offload(session.id, "bash", None, numbered(20))
        out = (await store.results.grep(ref.id, r"^line (5|15)$", context=1)).splitlines()
        assert out[1:] == ["4-line 4", "5:line 5", "6-line 6", "--", "14-line 14", "15:line 15", "16-line 16"]

    async def test_numbers_right_across_chunks(self, store, session):
        """Line numbers stay exact when matches sit in later chunks of a big output."""
        ref = await store.results.offload(session.id, "bash", None, numbered(300_000))
        out = (await store.results.grep(ref.id, r"^line 29999[0-9]$")).splitlines()
        assert out[1:] == [f"{n}:line {n}" for n in range(299_990, 300_000)]

    async def test_crlf_lines(self, store, session):
        """CRLF output matches `$` before the CR and shows lines without it."""
        ref = await store.results.offload(session.id, "bash", None, "ok\r\nFAIL\r\nok\r\n")
        assert (await store.results.grep(ref.id, "FAIL$")).splitlines()[1:] == ["2:FAIL"]
        assert (await store.results.grep(ref.id, "FAIL")).splitlines()[1:] == ["2:FAIL"]

    async def test_max_matches_stops_and_says_so(self, store, session):
        """After max_matches the grep stops and tells how to narrow down."""
        ref = await store.results.offload(session.id, "bash", None, numbered(1000))
        out = (await store.results.grep(ref.id, "line", max_matches=5)).splitlines()
        assert len(out) == 7 and "more matches exist" in out[-1]

    async def test_no_match(self, store, session):
        """No matching line is said plainly."""
        ref = await store.results.offload(session.id, "bash", None, numbered(3))
        assert "no line of" in await store.results.grep(ref.id, "zzz")

    async def test_invalid_regex(self, store, session):
        """An invalid regex is a BadPattern naming the pattern and the problem."""
        ref = await store.results.offload(session.id, "bash", None, "x")
        with pytest.raises(BadPattern, match=r"invalid regular expression 'a\(b'"):
            await store.results.grep(ref.id, "a(b")


class TestRefs:
    async def test_unknown_ref(self, store, session):
        """An id that is well formed but unknown says how to find a real one."""
        with pytest.raises(RefNotFound, match="recall"):
            await store.results.read("r_0123456789")

    @pytest.mark.parametrize(
        "text",
        [
            "",
            "hello",
            "r_12",
            "ctx://p/s_1/r_0123456789",
            "ctx://r_0123456789",
            "r_0123456789:L5-2",
            "r_0123456789:Lx",
            "ctx:///p/s_0123456789ab/nope",
        ],
    )
    async def test_bad_refs(self, store, text):
        """Malformed ids and URIs are BadRef errors that show the expected forms."""
        with pytest.raises(BadRef):
            await store.results.resolve(text)

    async def test_short_id_bound_to_its_session(self, store, session):
        """Inside another session a short id does not resolve; the error gives its URI."""
        ref = await store.results.offload(session.id, "bash", None, "x")
        other = await store.sessions.create("/else", "m")
        assert (await store.results.resolve(ref.id, session.id)).ref.id == ref.id
        with pytest.raises(RefNotFound, match="ctx://"):
            await store.results.resolve(ref.id, other.id)

    async def test_uri_resolves_across_sessions(self, store, session):
        """A URI resolves from any session, and its project may contain spaces and slashes."""
        ref = await store.results.offload(session.id, "bash", None, numbered(10))
        other = await store.sessions.create("/else", "m")
        uri = build_uri(session.project, session.id, ref.id, (2, 3))
        assert uri.startswith("ctx:///work/project%20one/")
        resolved = await store.results.resolve(uri, other.id)
        assert resolved.ref == ResultRef(ref.id, ref.byte_size, 10, "bash", session.id)
        assert resolved.lines == (2, 3) and resolved.project == session.project
        assert resolved.uri == uri

    async def test_uri_with_wrong_session(self, store, session):
        """A URI naming the wrong session is refused with the right URI."""
        ref = await store.results.offload(session.id, "bash", None, "x")
        wrong = build_uri(session.project, "s_000000000000", ref.id)
        with pytest.raises(RefNotFound, match=session.id):
            await store.results.resolve(wrong)


class TestListBlobs:
    async def test_newest_first_with_filters(self, store, session):
        """list_blobs shows newest first and filters by session and project."""
        other = await store.sessions.create("/else", "m")
        a = await store.results.offload(session.id, "bash", "c1", "first line\nmore")
        b = await store.results.offload(other.id, "grep", "c2", "other\n")
        listed = await store.results.list_blobs()
        assert [i.ref.id for i in listed] == [b.id, a.id]
        info = (await store.results.list_blobs(session_id=session.id))[0]
        assert (info.ref.id, info.first_line, info.tool_call_id) == (a.id, "first line", "c1")
        assert [i.ref.id for i in await store.results.list_blobs(project="/else")] == [b.id]
        assert info.uri == build_uri(session.project, session.id, a.id)

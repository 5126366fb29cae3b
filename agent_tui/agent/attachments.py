"""What the user's message becomes before it enters the history: `@path` files attached, and a
huge paste stored like a tool output.

A prompt larger than the offload threshold goes into the blob store and the model sees a
head+tail view with a ref, exactly as for a large tool output — a 2 MB paste is never sent whole,
and one larger than the window cannot overflow it. `@path` attaches a workspace file: whole when
small, as a view with a ref when large.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent.image_attach import ImageIntake, take_image, takes_images
from agent_tui.base.images import MAX_IMAGE_BYTES, ImageAttachment, sniff
from agent_tui.base.user_command_text import attachment_block
from agent_tui.context.views import inline_view
from agent_tui.tools.workspace import resolve_path

if TYPE_CHECKING:
    from agent_tui.base.messages import ResultRef
    from agent_tui.store import Store

log = logging.getLogger(__name__)

PASTE_WINDOW_SHARE = 0.25
"""A paste larger than this share of the effective window is offloaded, whatever the byte
threshold says: a 3.9 KB paste inline is fine in 128 K tokens and overflows a 4 K window."""
BYTES_PER_TOKEN = 3
"""A low estimate of bytes per token (code and prose run 3-4), so sizes err on the small side."""
MIN_VIEW_BYTES = 512

# `@path` at the start or after whitespace; the path runs to the next whitespace. A trailing
# punctuation mark (`@src/app.py,`) is not part of the path.
AT_PATH = re.compile(r"(?:(?<=\s)|^)@([^\s@]+?)(?=[.,;:!?)\]]*(?:\s|$))")


@dataclass
class PreparedPrompt:
    text: str
    """The message content the model will see."""
    refs: list[ResultRef] = field(default_factory=list)
    """Blobs made for attachments and the paste."""
    notes: list[str] = field(default_factory=list)
    """One line each for the user: what was attached or offloaded."""
    images: list[ImageAttachment] = field(default_factory=list)
    """Pictures that go with the text (agent/image_attach.py)."""


def mentioned_paths(text: str, workspace: Path) -> list[Path]:
    """The `@path` mentions that name files inside the workspace (others stay plain text)."""

    found: list[Path] = []
    for match in AT_PATH.finditer(text):
        try:
            path = resolve_path(workspace, match.group(1))
        except Exception:  # noqa: BLE001 - outside the workspace or unresolvable: plain text
            continue
        if path.is_file() and path not in found:
            found.append(path)
    return found


def image_chips(text: str, workspace: Path, model: str | None) -> tuple[str, ...]:
    """The chips the chat shows under a message for the `@` pictures that will be sent
    (`[image shot.png 120 KB]`): the same test as `take_image`, on the file's first bytes."""
    if not takes_images(model):
        return ()
    chips = []
    for path in mentioned_paths(text, workspace):
        try:
            size = path.stat().st_size
            with path.open("rb") as f:
                head = f.read(32)
        except OSError:
            continue
        media_type = sniff(head)
        if media_type is not None and size <= MAX_IMAGE_BYTES:
            chips.append(ImageAttachment(path.name, media_type, 0, 0, size).chip())
    return tuple(chips)


def paste_threshold(configured: int, effective_window: int) -> int:
    """The offload threshold for the user's message: the configured bytes, but never more than
    `PASTE_WINDOW_SHARE` of the window."""
    share = int(effective_window * PASTE_WINDOW_SHARE * BYTES_PER_TOKEN)
    return max(MIN_VIEW_BYTES, min(configured, share))


async def fit_prompt(
    text: str, *, room_tokens: int, store: Store | None, session_id: str, max_line_length: int
) -> PreparedPrompt:
    """A message that cannot fit `room_tokens` at all: stored whole, and a head+tail view of
    half the room (with its ref) is what the model gets."""
    data = text.encode("utf-8", "replace")
    size = max(MIN_VIEW_BYTES, max(0, room_tokens) * BYTES_PER_TOKEN // 2)
    view, ref = await _stored_view("message", data, store, session_id, size, max_line_length)
    note = (
        f"Your {len(data):,}-byte message cannot fit the model's window; it is stored whole"
        + (f" as {ref.id}" if ref else "")
        + " and the model sees a head+tail view"
        + (" it can read the rest of." if ref else ".")
    )
    return PreparedPrompt(
        f"[The user's message is too large for the window; it is stored whole. This is a view of it.]\n{view}",
        [ref] if ref is not None else [],
        [note],
    )


async def prepare_prompt(
    text: str,
    *,
    workspace: Path,
    store: Store | None,
    session_id: str,
    threshold: int,
    max_line_length: int,
    model: str | None = None,
    takes_images: bool = True,
    extra_images: Sequence[tuple[str, bytes]] = (),
) -> PreparedPrompt:
    """Offload a huge paste and attach `@path` files, within the offload threshold each; a
    picture goes as an image when the model takes images."""
    prepared = PreparedPrompt(text)
    size = len(text.encode("utf-8", "replace"))
    if size > threshold:
        view, ref = await _stored_view(
            "paste", text.encode("utf-8", "replace"), store, session_id, threshold, max_line_length
        )
        prepared.text = f"[The user pasted a large text; it is stored whole. This is a view of it.]\n{view}"
        if ref is not None:
            prepared.refs.append(ref)
        prepared.notes.append(
            f"Your {size:,}-byte message was stored"
            + (f" as {ref.id}" if ref else "")
            + "; the model sees a head+tail view and can read the rest."
        )
        # Mentions inside a huge paste are not attachments; an editor's pictures still are.
        await _extra_images(prepared, ImageIntake(), extra_images, store, session_id, takes_images, model)
        return prepared
    attachments = []
    intake = ImageIntake()
    for path in mentioned_paths(text, workspace):
        rel = path.relative_to(workspace) if path.is_relative_to(workspace) else path
        try:
            data = path.read_bytes()
        except OSError as exc:
            prepared.notes.append(f"@{rel}: not attached ({exc.strerror})")
            continue
        if await take_image(
            intake,
            str(rel),
            data,
            store=store,
            session_id=session_id,
            takes_images=takes_images,
            mention=True,
        ):
            continue
        if b"\0" in data[:8192]:
            prepared.notes.append(f"@{rel}: not attached (binary file)")
            continue
        if len(data) <= threshold:
            body = data.decode("utf-8", "replace")
        else:
            body, ref = await _stored_view(
                f"attachment:{rel}", data, store, session_id, threshold, max_line_length
            )
            if ref is not None:
                prepared.refs.append(ref)
            prepared.notes.append(
                f"@{rel}: {len(data):,} bytes, attached as a view" + (f" with ref {ref.id}" if ref else "")
            )
        attachments.append(attachment_block(str(rel), body))
    await _extra_images(prepared, intake, extra_images, store, session_id, takes_images, model)
    if attachments:
        prepared.text = text + "".join(attachments)
    return prepared


async def _extra_images(
    prepared: PreparedPrompt,
    intake: ImageIntake,
    extra: Sequence[tuple[str, bytes]],
    store: Store | None,
    session_id: str,
    takes_images: bool,
    model: str | None,
) -> None:
    """The pictures that came apart from the text (an editor's image blocks) join the mentions'."""
    for name, data in extra:
        if not await take_image(
            intake, name, data, store=store, session_id=session_id, takes_images=takes_images
        ):
            prepared.notes.append(f"{name}: not attached (not a PNG, JPEG, GIF or WebP image)")
    intake.finish(model)
    prepared.images, prepared.notes = intake.images, prepared.notes + intake.notes


async def _stored_view(
    label: str, data: bytes, store: Store | None, session_id: str, size: int, width: int
) -> tuple[str, ResultRef | None]:
    if store is not None:
        try:
            ref = await store.results.offload(session_id, label, None, data)
            return await store.results.view(ref, size, width), ref
        except Exception:
            log.exception("could not store %s; sending an inline view", label)
    return inline_view(data.decode("utf-8", "replace"), size, width, label), None

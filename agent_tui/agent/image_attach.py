"""`@shot.png` (and an ACP image block) become an image attachment on the user's message.

The picture is recognised by its magic bytes, refused with one line when over the size cap,
stored whole in the blob store (like any attachment) and carried in memory for the request. A
model that litellm's list says takes no images gets one notice and only the text. On resume,
`reload_images` reads each picture back from its blob, so a resumed session sends it again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from agent_tui.base.images import MAX_IMAGE_BYTES, ImageAttachment, dimensions, sniff
from agent_tui.llm import catalog

if TYPE_CHECKING:
    from agent_tui.base.messages import Message
    from agent_tui.store import Store

log = logging.getLogger(__name__)


@dataclass
class ImageIntake:
    """What came of the pictures of one message."""

    images: list[ImageAttachment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    """Names of pictures not sent because the model takes no images (one notice for all)."""

    def finish(self, model: str | None) -> None:
        if self.refused:
            self.notes.append(
                f"{', '.join(self.refused)}: not sent — {model or 'the model'} does not accept images "
                "(per litellm's model list); your text is sent."
            )


async def take_image(
    intake: ImageIntake,
    name: str,
    data: bytes,
    *,
    store: Store | None,
    session_id: str,
    takes_images: bool,
    mention: bool = False,
) -> bool:
    """Attach `data` when it is a picture; False when it is not one (the caller goes on).
    `mention`: it was named as `@name` (and the notices say so)."""
    media_type = sniff(data)
    if media_type is None:
        return False
    label = f"@{name}" if mention else name
    if len(data) > MAX_IMAGE_BYTES:
        intake.notes.append(
            f"{label}: not attached ({len(data) / 1048576:.1f} MB image; the limit is "
            f"{MAX_IMAGE_BYTES // 1048576} MB)"
        )
        return True
    if not takes_images:
        intake.refused.append(label)
        return True
    ref_id = None
    if store is not None:
        try:
            ref = await store.results.offload(session_id, f"image:{name}", None, data)
            ref_id = ref.id
        except Exception:
            log.exception("could not store image %s; it is sent but not kept", name)
    width, height = dimensions(data, media_type)
    intake.images.append(ImageAttachment(name, media_type, width, height, len(data), ref_id, data))
    return True


def takes_images(model: str | None) -> bool:
    """False only when litellm's model list knows the model and does not mark it as seeing
    images; a model it does not list (a local one) is assumed to."""

    entry = catalog.entry(model) if model else None
    return entry is None or bool(entry.get("supports_vision"))


async def reload_images(store: Store, history: Sequence[Message], session_id: str) -> list[Message]:
    """`history` with each picture's bytes read back from its blob (a missing blob leaves the
    picture without bytes, and the request sends its placeholder line instead)."""
    out = list(history)
    for i, message in enumerate(out):
        if not message.images or all(image.data for image in message.images):
            continue
        images = []
        for image in message.images:
            if not image.data and image.ref_id is not None:
                try:
                    image = replace(image, data=await store.results.get_bytes(image.ref_id, session_id))
                except Exception:  # noqa: BLE001 - a collected blob: the placeholder goes instead
                    log.warning("image %s (%s) could not be reloaded", image.name, image.ref_id)
            images.append(image)
        out[i] = replace(message, images=tuple(images))
    return out


def pictures_with_bytes(history: Sequence[Message]) -> int:
    """How many pictures in `history` would go to the model as images."""
    return sum(1 for message in history for image in message.images if image.data)


def for_model(history: list[Message], model: str | None) -> list[Message]:
    """`history` as `model` may get it: for a model that takes no images (a command's `model:`
    for one turn), each picture becomes its placeholder line in the message's text, so the
    provider never gets an image part it refuses. The stored history keeps the bytes."""
    # The model list is loaded by then (each turn's message was checked against it), and a
    # look-up is cheaper than scanning a long history on every step.
    if takes_images(model) or not pictures_with_bytes(history):
        return history
    # The text changes too, not only the images: a message equal to the original would be given
    # the original's cached wire form (image bytes are not part of a message's equality).
    return [
        replace(
            m,
            content="\n".join([m.content or "", *(i.placeholder() for i in m.images)]).lstrip("\n"),
            images=(),
        )
        if any(i.data for i in m.images)  # the others already go as their placeholder parts
        else m
        for m in history
    ]

"""A club's logo for its documents (DOC-1): an uploaded PNG or JPEG image, checked by its bytes.

The type is what the bytes say (the PNG signature, the JPEG start-of-image marker), never the file
name. A PNG's chunks are walked with their CRCs and must end with IEND; a JPEG's segments are
walked to its frame header and it must end with the end-of-image marker. SVG is refused: it can
name other files and URLs, which the renderer would then fetch. Limits: at most `MAX_BYTES`
(512 KiB) and `MAX_SIDE` (2000) pixels on each side.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from domain.errors import DomainError

MAX_BYTES = 512 * 1024
MAX_SIDE = 2000
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
JPEG_START = b"\xff\xd8\xff"
# JPEG start-of-frame markers (baseline, progressive, lossless, ...): not DHT C4, JPG C8, DAC CC
_JPEG_FRAMES = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


@dataclass(frozen=True)
class Logo:
    media_type: str  # image/png | image/jpeg
    width: int
    height: int
    data: bytes


def checked_logo(data: bytes) -> Logo:
    """The logo these bytes are, or a DomainError saying what is wrong with them."""
    if not data:
        raise DomainError("logo-empty", "the logo file is empty")
    if len(data) > MAX_BYTES:
        raise DomainError("logo-too-large", f"the logo is larger than 512 KiB ({MAX_BYTES:,} bytes)")
    if data.startswith(PNG_SIGNATURE):
        media_type, (width, height) = "image/png", _png_size(data)
    elif data.startswith(JPEG_START):
        media_type, (width, height) = "image/jpeg", _jpeg_size(data)
    elif data.lstrip()[:5].lower() in (b"<svg ", b"<svg>", b"<?xml") or b"<svg" in data[:1024].lower():
        raise DomainError("logo-type", "SVG logos are not accepted (they can load other files): use PNG or JPEG")
    else:
        raise DomainError("logo-type", "the logo must be a PNG or JPEG image; this file's bytes are neither")
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise DomainError("logo-dimensions", f"the logo is {width}×{height} pixels: at most {MAX_SIDE} on each side")
    return Logo(media_type, width, height, data)


def _png_size(data: bytes) -> tuple[int, int]:
    position, seen, size = len(PNG_SIGNATURE), [], None
    while position + 12 <= len(data):
        length = int.from_bytes(data[position : position + 4], "big")
        kind = data[position + 4 : position + 8]
        end = position + 12 + length
        if end > len(data):
            break
        body = data[position + 8 : end - 4]
        if zlib.crc32(kind + body) != int.from_bytes(data[end - 4 : end], "big"):
            raise DomainError(
                "logo-damaged", f"the logo is a damaged PNG: the {kind.decode('latin-1')!r} chunk's CRC is wrong"
            )
        if not seen:
            if kind != b"IHDR" or length != 13:
                break
            size = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
        seen.append(kind)
        position = end
        if kind == b"IEND":
            if b"IDAT" not in seen or position != len(data):
                break
            assert size is not None
            return size
    raise DomainError("logo-damaged", "the logo is a damaged or truncated PNG")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    position, size = 2, None
    while position + 4 <= len(data) and data[position] == 0xFF:
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        length = int.from_bytes(data[position + 2 : position + 4], "big")
        if marker in _JPEG_FRAMES and length >= 7 and position + 9 <= len(data):
            size = (
                int.from_bytes(data[position + 7 : position + 9], "big"),
                int.from_bytes(data[position + 5 : position + 7], "big"),
            )
        if marker == 0xDA:  # start of scan: the image data follows, up to the end-of-image marker
            if size is not None and data.endswith(b"\xff\xd9"):
                return size
            break
        position += 2 + length
    raise DomainError("logo-damaged", "the logo is a damaged or truncated JPEG")

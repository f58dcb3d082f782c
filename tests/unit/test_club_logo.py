"""DOC-1: a club's logo on its documents is a PNG or JPEG checked by its bytes (not its name), at
most 512 KiB and 2000 pixels a side; everything else is refused with what is wrong."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from domain.clubs.rules.logo import MAX_BYTES, checked_logo
from domain.errors import DomainError


def image(kind: str, size: tuple[int, int] = (300, 120)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (29, 53, 87)).save(out, kind)
    return out.getvalue()


def refused(data: bytes) -> tuple[str, str]:
    with pytest.raises(DomainError) as caught:
        checked_logo(data)
    return caught.value.code, caught.value.message


def test_doc_1_png_and_jpeg_logos_are_read_with_their_size():
    """DOC-1"""
    png, jpeg = checked_logo(image("PNG")), checked_logo(image("JPEG", (2000, 2000)))
    assert (png.media_type, png.width, png.height) == ("image/png", 300, 120)
    assert (jpeg.media_type, jpeg.width, jpeg.height) == ("image/jpeg", 2000, 2000)
    assert png.data == image("PNG")


def test_doc_1_the_type_is_what_the_bytes_say():
    """DOC-1: a GIF, a text file, an SVG are refused whatever they are called"""
    assert refused(image("GIF")) == ("logo-type", "the logo must be a PNG or JPEG image; this file's bytes are neither")
    assert refused(b"hello, world") == (
        "logo-type",
        "the logo must be a PNG or JPEG image; this file's bytes are neither",
    )
    svg = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><image href="file:///etc/passwd"/></svg>'
    assert refused(svg) == ("logo-type", "SVG logos are not accepted (they can load other files): use PNG or JPEG")
    assert refused(b"") == ("logo-empty", "the logo file is empty")


def test_doc_1_limits_are_512_kib_and_2000_pixels_a_side():
    """DOC-1"""
    assert refused(image("PNG", (2001, 10))) == (
        "logo-dimensions",
        "the logo is 2001×10 pixels: at most 2000 on each side",
    )
    assert refused(image("JPEG", (10, 2400))) == (
        "logo-dimensions",
        "the logo is 10×2400 pixels: at most 2000 on each side",
    )
    big = image("PNG")
    chunk = b"tEXt" + b"x" * (MAX_BYTES - len(big) + 1)  # a valid ancillary chunk, one byte too many
    padded = big[:33] + struct.pack(">I", len(chunk) - 4) + chunk + struct.pack(">I", zlib.crc32(chunk)) + big[33:]
    assert len(padded) > MAX_BYTES
    assert refused(padded) == ("logo-too-large", "the logo is larger than 512 KiB (524,288 bytes)")


def test_doc_1_damaged_and_truncated_images_are_refused():
    """DOC-1: a PNG header alone, a cut PNG or JPEG, a PNG chunk with a wrong CRC"""
    png, jpeg = image("PNG"), image("JPEG")
    assert refused(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR") == ("logo-damaged", "the logo is a damaged or truncated PNG")
    assert refused(png[:-20]) == ("logo-damaged", "the logo is a damaged or truncated PNG")
    assert refused(jpeg[:-100]) == ("logo-damaged", "the logo is a damaged or truncated JPEG")
    flipped = bytearray(png)
    flipped[20] ^= 0xFF  # inside IHDR
    assert refused(bytes(flipped)) == ("logo-damaged", "the logo is a damaged PNG: the 'IHDR' chunk's CRC is wrong")

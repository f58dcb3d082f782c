"""`make screenshots` (tests/web/screenshots.py): a page taken in Debian's headless Chromium is a
small palette PNG of the requested width; a bad width is one line, exit 2, nothing written."""

from __future__ import annotations

from PIL import Image

from tests.support import world
from tests.web import screenshots


def test_a_page_becomes_a_small_palette_png_of_the_width_asked(committed, web, browser, tmp_path):
    s = world.season(committed)
    written = screenshots.take(browser, web.url, {"season.png": f"/seasons/{s['id']}"}, tmp_path, 1000)
    path = tmp_path / "season.png"
    assert written == [("season.png", path.stat().st_size)]
    with Image.open(path) as image:
        assert (image.format, image.mode, image.width) == ("PNG", "P", 1000)
        assert 300 <= image.height <= screenshots.MAX_HEIGHT
    assert path.stat().st_size < 60 * 1024


def test_a_bad_width_is_one_line_exit_2_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "pictures"
    assert screenshots.main(["--width", "10", "--out", str(out)]) == 2
    assert capsys.readouterr().err == "error: --width 10 must be from 320 to 3000\n"
    assert not out.exists()


def test_a_width_that_is_not_a_number_is_one_line_and_exit_2(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit) as stopped:
        screenshots.main(["--width", "wide", "--out", str(tmp_path / "pictures")])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == "error: argument --width: invalid int value: 'wide'\n"
    assert not (tmp_path / "pictures").exists()

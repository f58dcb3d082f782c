"""Rendering (the adapter): Jinja2 templates (autoescaped) + WeasyPrint → signed, sealed PDFs.

A `Renderer` loads the templates, the font configuration and the parsed stylesheet once and reuses
them for every document. Results sheets are WeasyPrint documents, written tagged (`write_sealed`:
structure tree, /Lang, the title of their `<title>`, in the sheet's language). Certificates are stamped
(`infra.stamp`): WeasyPrint lays out the certificate page once per shape, and each certificate's
lines and QR code are written into that layout with one font subset per chunk (see
bench_documents). A batch of more than one chunk is spread over `workers` processes (a
`ProcessPoolExecutor` started on first use from a forkserver that has imported WeasyPrint once;
each worker keeps its own `Renderer`), at most `workers + 1` chunks in flight, so memory stays
bounded.
"""

from __future__ import annotations

import base64
import itertools
import json
import multiprocessing
import re
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pydyf
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration

from domain.clubs.rules.logo import Logo
from domain.documents.rules.model import (
    LOCALES,
    Certificate,
    PokerSheet,
    PusoySheet,
    SeasonSheet,
)
from domain.documents.rules.signing import verification_code
from domain.errors import ConfigurationError
from infra import i18n, pdf, stamp
from infra.config import DEFAULT_PUBLIC_URL

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
FONT_FILES = ("fonts/LiberationSans-Regular.ttf", "fonts/LiberationSans-Bold.ttf")
STYLESHEET = "documents.css"
CHUNK = 100  # certificates per font subset (one WeasyPrint document of templates and palette)


def check_assets(templates: Path = TEMPLATES) -> None:
    """A missing font or stylesheet is a clear error before anything renders (never a fallback to
    whatever fonts the machine has)."""
    for name in (*FONT_FILES, STYLESHEET):
        if not (templates / name).is_file():
            raise ConfigurationError("document-asset-missing", f"the document asset {templates / name} is missing")
    for locale in LOCALES:
        i18n.translations(locale)  # a missing catalog is named here too


def environment(templates: Path = TEMPLATES, locale: str = "en") -> Environment:
    """One environment per document language (DOC-4): the catalog's gettext and the CLDR formats."""
    # Autoescape on for every template: user text such as "<b>Иван</b>" prints as written (DOC-3).
    env = Environment(
        loader=FileSystemLoader(templates), autoescape=True, undefined=StrictUndefined, extensions=["jinja2.ext.i18n"]
    )
    env.install_gettext_translations(i18n.translations(locale), newstyle=True)
    env.filters["longdate"] = lambda day: i18n.long_date(day, locale)
    env.filters["number"] = lambda value: i18n.number(value, locale)
    env.filters["points"] = lambda value: i18n.points(value, locale)
    env.filters["place"] = lambda n: i18n.place(n, locale)
    env.filters["time"] = lambda at: i18n.short_time(at, locale)
    env.globals["locale"] = locale
    env.globals["page_css"] = page_css(i18n.page_footer(locale))
    return env


def page_css(footer: str) -> Markup:
    """The page footer (`page 2 of 3` in the document's language) as an @page rule: the words as CSS
    strings, the numbers as CSS counters."""
    parts = []
    for piece in re.split(r"(%\((?:page|pages)\)s)", footer):
        if piece in ("%(page)s", "%(pages)s"):
            parts.append(f"counter({piece[2:-2]})")
        elif piece:
            parts.append(json.dumps(piece, ensure_ascii=False))
    content = " ".join(parts).replace("<", "\\3c ")
    return Markup(f"@page {{ @bottom-right {{ content: {content}; }} }}")


def logo_uri(logo: Logo | None) -> str | None:
    """A club's logo as the templates' image source (a data: URI: nothing is fetched)."""
    if logo is None:
        return None
    return f"data:{logo.media_type};base64,{base64.b64encode(logo.data).decode()}"


def verification_url(public_url: str, serial: str, code: str) -> str:
    """What a certificate's QR code opens (DOC-5): the public verification page of that certificate."""
    return f"{public_url.rstrip('/')}/verify/{serial}?code={code}"


def certificate_order(cert: Certificate, key: bytes, public_url: str = DEFAULT_PUBLIC_URL) -> stamp.Order:
    """What a certificate prints (its lines, the URL of its QR code), the signed data embedded with
    it, its title and its language."""
    embedded = pdf.signed(key, cert)
    code = verification_code(embedded["signature"])
    url = verification_url(public_url, cert.serial, code)
    return stamp.Order(i18n.certificate_lines(cert, code), url, embedded, i18n.certificate_title(cert), cert.locale)


class _Information(pydyf.Dictionary):
    """The document information dictionary, written as an object of its own, never inside a
    compressed object stream: the seal is written into the file's bytes there (`pdf.sealed`)."""

    compressible = False


def write_sealed(
    key: bytes, document: Any, embedded: dict[str, Any], title: str | None = None, tagged: bool = True
) -> bytes:
    """A laid-out WeasyPrint document written as a signed, sealed, tagged PDF in one pass: the
    structure tree and /MarkInfo (WeasyPrint's `pdf_tags`; `tagged=False` only for the benchmark's
    comparison), the catalog's /Lang from the HTML's `lang`, the /Title from its `<title>` (or
    `title`), `embedded` attached as `tourney.json` and the blank seal in the document information,
    then sealed (DOC-2, DOC-4)."""
    if title is not None:
        document.metadata.title = title
    attachment = json.dumps(embedded, ensure_ascii=False, sort_keys=True).encode()

    def finish(_document: Any, out: Any) -> None:
        stream = pydyf.Stream([attachment], pydyf.Dictionary({"Type": "/EmbeddedFile"}), compress=True)
        out.add_object(stream)
        spec = pydyf.Dictionary(
            {
                "Type": "/Filespec",
                "F": pydyf.String(pdf.ATTACHMENT),
                "UF": pydyf.String(pdf.ATTACHMENT),
                "EF": pydyf.Dictionary({"F": stream.reference}),
            }
        )
        out.add_object(spec)
        names = pydyf.Dictionary({"Names": pydyf.Array([pydyf.String(pdf.ATTACHMENT), spec.reference])})
        out.add_object(names)
        out.catalog.setdefault("Names", pydyf.Dictionary())["EmbeddedFiles"] = names.reference
        out.info = _Information(
            {**out.info, "Producer": pydyf.String("Tourney"), pdf.SEAL_NAME[1:]: pydyf.String(pdf.BLANK_SEAL)}
        )

    return pdf.sealed(key, document.write_pdf(finisher=finish, pdf_tags=tagged))


class Renderer:
    """Renders every document; `workers` > 1 lets large certificate batches use that many processes.
    Use it as a context manager (or call `close`) to stop the worker processes."""

    def __init__(self, key: bytes, templates: Path = TEMPLATES, workers: int = 1, public_url: str = DEFAULT_PUBLIC_URL):
        check_assets(templates)
        self.key = key
        self.templates = templates
        self.workers = workers
        self.public_url = public_url
        self.envs = {locale: environment(templates, locale) for locale in LOCALES}
        self.font_config = FontConfiguration()
        self.css = CSS(filename=str(templates / STYLESHEET), font_config=self.font_config)
        self.stampers = {
            locale: stamp.Stamper(env, self.css, self.font_config, str(templates), public_url)
            for locale, env in self.envs.items()
        }
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def _sheet(self, template: str, sheet: PokerSheet | PusoySheet | SeasonSheet, logo: Logo | None) -> bytes:
        """A sheet's signed, tagged PDF; its title is the template's `<title>`, in the sheet's language."""
        html = (
            self.envs[i18n.checked(sheet.locale)]
            .get_template(template)
            .render(public_url=self.public_url, s=sheet, logo=logo_uri(logo))
        )
        document = HTML(string=html, base_url=str(self.templates)).render(
            stylesheets=[self.css], font_config=self.font_config
        )
        return write_sealed(self.key, document, pdf.signed(self.key, sheet))

    def poker_sheet(self, sheet: PokerSheet, logo: Logo | None = None) -> bytes:
        return self._sheet("poker_sheet.html", sheet, logo)

    def pusoy_sheet(self, sheet: PusoySheet, logo: Logo | None = None) -> bytes:
        return self._sheet("pusoy_sheet.html", sheet, logo)

    def season_sheet(self, sheet: SeasonSheet, logo: Logo | None = None) -> bytes:
        """A season's standings after one of its tournaments (LG-3)."""
        return self._sheet("season_sheet.html", sheet, logo)

    def certificates(
        self, certs: Sequence[Certificate], chunk: int = CHUNK, logo: Logo | None = None
    ) -> Iterator[bytes]:
        """One signed one-page PDF per certificate, in order. Certificates are stamped `chunk` at a
        time (one font subset each), so memory stays bounded however many there are; more than one
        chunk with `workers` > 1 is shared evenly among the worker processes. The club's `logo`, if
        any, is part of the certificates' template."""
        for _locale, same in itertools.groupby(certs, key=lambda c: c.locale):  # one language a document
            yield from self._certificates(list(same), chunk, logo)

    def _certificates(self, certs: Sequence[Certificate], chunk: int, logo: Logo | None) -> Iterator[bytes]:
        if self.workers > 1 and len(certs) > chunk:
            size = min(chunk, -(-len(certs) // self.workers))
            yield from self._in_workers([certs[i : i + size] for i in range(0, len(certs), size)], logo)
            return
        for start in range(0, len(certs), chunk):
            yield from self._chunk(certs[start : start + chunk], logo)

    def _chunk(self, part: Sequence[Certificate], logo: Logo | None) -> list[bytes]:
        orders = [certificate_order(c, self.key, self.public_url) for c in part]
        return self.stampers[i18n.checked(part[0].locale)].certificates(self.key, orders, logo_uri(logo))

    def _in_workers(self, parts: list[Sequence[Certificate]], logo: Logo | None) -> Iterator[bytes]:
        if self._pool is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(self.key, self.templates, self.public_url),
            )
        in_flight: deque[Future[list[bytes]]] = deque()
        for part in parts:
            in_flight.append(self._pool.submit(_worker_chunk, part, logo))
            if len(in_flight) > self.workers:
                yield from in_flight.popleft().result()
        while in_flight:
            yield from in_flight.popleft().result()


_worker: Renderer | None = None  # a worker process's own renderer


def _start_worker(key: bytes, templates: Path, public_url: str) -> None:
    global _worker
    _worker = Renderer(key, templates, public_url=public_url)


def _worker_chunk(part: Sequence[Certificate], logo: Logo | None) -> list[bytes]:
    assert _worker is not None, "a worker process renders only after _start_worker"
    return _worker._chunk(part, logo)

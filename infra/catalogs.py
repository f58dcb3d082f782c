"""The gettext catalogs (RULES DOC-4): extract every message with Babel, merge into each language's
`templates/locale/<lang>/LC_MESSAGES/<domain>.po` (translations kept, new messages added
untranslated, gone ones dropped), and compile the `.mo` files the renderer loads. Two domains:
`messages`, the documents' and the pages' (`babel.cfg`: the templates and the labels made in code),
and `refusals`, the poker services' refusals (domain/errors.py: each English template with its code
as the context, from every `DomainError`, `NotFound` and `Problem` of `domain/poker`), which the web
says in the club's language (flows/web/refusals.py).

    python -m infra.catalogs           # update the .po files and compile them (make catalogs)
    python -m infra.catalogs --check   # exit 1 naming what is missing, untranslated or stale

English is the source language: its catalog maps each message to itself. The .mo files are
committed; `tests/unit/test_documents_i18n.py` fails when a catalog is incomplete or stale.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from domain.documents.rules.model import LOCALES

ROOT = Path(__file__).resolve().parents[1]
LOCALE_DIR = ROOT / "templates" / "locale"
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "PN_": ((1, "c"), 2), "_t": (2,)}  # _t(locale, message, **values)
REFUSAL = ((1, "c"), 2)  # DomainError(code, template, ..., **values): the template, its code the context
REFUSAL_KEYWORDS = dict.fromkeys(("DomainError", "NotFound", "Problem", "ConfigurationError"), REFUSAL)
DOMAINS = ("messages", "refusals")


def _sources(domain: str) -> tuple[list, dict, dict]:
    if domain == "refusals":
        return [("domain/poker/**.py", "python")], {}, REFUSAL_KEYWORDS
    with (ROOT / "babel.cfg").open() as fp:
        method_map, options_map = parse_mapping_cfg(fp)
    return method_map, options_map, KEYWORDS


def extracted(domain: str = "messages") -> Catalog:
    """Every message of `domain`: the documents' and pages' from the sources named in babel.cfg, or
    the poker services' refusals."""
    method_map, options_map, keywords = _sources(domain)
    catalog = Catalog(project="tourney", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=keywords, strip_comment_tags=True
    ):
        if message:
            catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def po_path(locale: str, domain: str = "messages") -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{domain}.po"


def read(locale: str, domain: str = "messages") -> Catalog:
    path = po_path(locale, domain)
    if not path.exists():
        return Catalog(locale=locale, charset="utf-8")
    with path.open("rb") as fp:
        return read_po(fp, locale=locale)


def updated(locale: str, template: Catalog, domain: str = "messages") -> Catalog:
    catalog = read(locale, domain)
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    if locale == "en":  # the source language: each message is its own translation (a plural: its two forms)
        for message in catalog:
            if message.id and not (all(message.string) if isinstance(message.string, tuple) else message.string):
                message.string = message.id
    return catalog


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def problems() -> list[str]:
    """What makes the committed catalogs wrong: a message missing, untranslated, fuzzy, obsolete, or a
    .mo that is not the compiled .po."""
    found = []
    for domain in DOMAINS:
        found += _problems(domain)
    return found


def _problems(domain: str) -> list[str]:
    template = extracted(domain)
    wanted = {(m.context, m.id) for m in template if m.id}
    found = []
    for locale in LOCALES:
        catalog = read(locale, domain)
        have = {(m.context, m.id): m for m in catalog if m.id}
        found += [
            f"{locale}: missing {ctx or ''}{'|' if ctx else ''}{mid!r}"
            for ctx, mid in sorted(wanted - set(have), key=str)
        ]
        found += [f"{locale}: no longer used {key[1]!r}" for key in sorted(set(have) - wanted, key=str)]
        for key, message in have.items():
            if not message.string or (isinstance(message.string, tuple) and not all(message.string)):
                found.append(f"{locale}: untranslated {key[1]!r}")
            if message.fuzzy:
                found.append(f"{locale}: fuzzy {key[1]!r}")
        mo = po_path(locale, domain).with_suffix(".mo")
        if not mo.exists() or mo.read_bytes() != compiled(catalog):
            found.append(f"{locale}: {mo.relative_to(ROOT)} is not the compiled .po (run make catalogs)")
    return found


def main(argv: list[str]) -> int:
    if "--check" in argv:
        found = problems()
        for line in found:
            print(line, file=sys.stderr)
        return 1 if found else 0
    for domain in DOMAINS:
        template = extracted(domain)
        for locale in LOCALES:
            catalog = updated(locale, template, domain)
            path = po_path(locale, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as fp:
                write_po(fp, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False)
            path.with_suffix(".mo").write_bytes(compiled(catalog))
            untranslated = [m.id for m in catalog if m.id and not m.string]
            print(f"{path.relative_to(ROOT)}: {len(catalog)} messages, {len(untranslated)} untranslated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

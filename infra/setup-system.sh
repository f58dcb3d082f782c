#!/usr/bin/env bash
# System packages the project needs and pip cannot bring: the PostgreSQL 15 server (only when the
# embedded cluster is used), the Pango libraries WeasyPrint renders with, poppler-utils (pdftoppm) for
# the documents' picture tests, Chromium for the web pages' browser tests, and libfaketime for
# `make test-shifted`. Installs only what is missing, and only as root; otherwise says what to
# install (without libfaketime only `make test-shifted` fails).
set -euo pipefail

missing=()
if [ -z "${DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 && ! command -v pg_ctl >/dev/null; then
  missing+=(postgresql-15 postgresql-contrib-15)
fi
if ! ldconfig -p 2>/dev/null | grep -q libpango-1.0; then
  missing+=(libpango-1.0-0 libpangoft2-1.0-0)
fi
# WeasyPrint subsets the embedded fonts with HarfBuzz when it finds the library (about 5x faster per
# document than its fontTools fallback, bench_documents); checked on its own: Pango may be there without it.
if ! ldconfig -p 2>/dev/null | grep -q libharfbuzz-subset; then
  missing+=(libharfbuzz-subset0)
fi
# pdftoppm draws a document's first page as pixels for the picture tests (tests/integration/test_documents_pictures.py)
if ! command -v pdftoppm >/dev/null; then
  missing+=(poppler-utils)
fi
# the web pages' browser tests drive Debian's headless Chromium (never a downloaded browser build)
if ! command -v chromium >/dev/null; then
  missing+=(chromium)
fi
optional=()
if ! ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1; then
  optional+=(faketime)  # make test-shifted
fi
# wrk, the load generator of `python -m bench public` (make bench)
if ! command -v wrk >/dev/null; then
  optional+=(wrk)
fi
# Chromium's Russian: the browser's own parts of a page (a date field's "дд.мм.гггг") in make screenshots
if [ ! -e /usr/lib/chromium/locales/ru.pak ]; then
  optional+=(chromium-l10n)
fi
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if [ ${#missing[@]} -eq 0 ]; then
    echo "optional system packages (faketime: make test-shifted; chromium-l10n: make screenshots in Russian): ${optional[*]} (e.g. sudo apt-get install ${optional[*]})" >&2
    exit 0
  fi
  missing+=("${optional[@]}")
  echo "missing system packages: ${missing[*]} (install them, e.g. sudo apt-get install ${missing[*]})" >&2
  exit 2
fi
missing+=("${optional[@]}")
echo "installing system packages: ${missing[*]}"
# Another install may hold the package lock (two checkouts set up at once, unattended upgrades): wait
# for it, up to 10 minutes, instead of failing at once. Two set-ups of this project also take turns.
exec 9>/tmp/tourney-setup-system.lock
flock 9
wait_lock=(-o DPkg::Lock::Timeout=600)
apt-get "${wait_lock[@]}" update -qq
DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" install -y -qq "${missing[@]}" >/dev/null

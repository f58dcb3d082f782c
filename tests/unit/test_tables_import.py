"""Every area's tables module, imported alone in a fresh interpreter (as one CLI command or one flow
run imports it), resolves every foreign key it declares: a table it references is imported with it.
`tourney user add … --role floor` once failed with NoReferencedTableError: accounts.player_id could not
find `players` (issue 40)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    for p in (*ROOT.glob("domain/*/tables.py"), *ROOT.glob("domain/*/tables/*.py"))
)
CHECK = """
import importlib, sys
from domain.store.base import Base
importlib.import_module(sys.argv[1])
for table in Base.metadata.tables.values():
    for fk in table.foreign_keys:
        fk.column  # raises NoReferencedTableError when the referenced table was never imported
"""


@pytest.mark.parametrize("module", MODULES)
def test_a_tables_module_imported_alone_resolves_its_foreign_keys(module):
    done = subprocess.run([sys.executable, "-c", CHECK, module], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]

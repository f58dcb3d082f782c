"""The layers are enforced: import-linter's contracts (pyproject.toml) pass on the code as it is and
fail as soon as a pure rule module imports SQLAlchemy, or a module of the domain imports an adapter
of infra."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = str(Path(sys.executable).with_name("lint-imports"))


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LINT, "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)},
    )


def test_the_import_contracts_hold_for_the_code_as_it_is():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout or "broken" not in result.stdout.lower()


def _copy(tmp_path: Path) -> Path:
    for name in ("domain", "flows", "infra"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "migrations"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_a_rule_module_importing_sqlalchemy_breaks_the_pure_rules_contract(tmp_path: Path):
    tree = _copy(tmp_path)
    (tree / "domain" / "poker" / "rules" / "sneaky.py").write_text("import sqlalchemy  # noqa: F401\n")
    result = lint(tree)
    assert result.returncode == 1
    assert "Pure rules import no persistence, I/O, orchestration, CLI or templates BROKEN" in result.stdout
    assert "domain.poker.rules.sneaky -> sqlalchemy" in result.stdout


def test_a_service_importing_an_adapter_of_infra_breaks_the_layers_contract(tmp_path: Path):
    """The domain names what it needs as ports (domain/*/ports.py); only flows/bootstrap.py wires the
    adapters of infra to them."""
    tree = _copy(tmp_path)
    (tree / "domain" / "documents" / "services" / "sneaky.py").write_text("from infra import mail  # noqa: F401\n")
    result = lint(tree)
    assert result.returncode == 1
    assert "the domain at the bottom: the domain imports neither" in " ".join(result.stdout.split())
    assert "domain.documents.services.sneaky -> infra.mail" in result.stdout

"""What `make test` checks of the code and the docs besides behaviour: ruff finds nothing to lint or
reformat, and every path, module and link that README.md and docs/ name exists (a moved file fails here, not a reader)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("domain", "flows", "infra", "tests", "bench", "templates", "docs", ".ci")
PATH = re.compile(r"`((?:" + "|".join(re.escape(t) for t in TOP) + r")/[\w./-]*)`")
MODULE = re.compile(r"python -m ([\w.]+)")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _generated(path: str) -> bool:
    """A file the project writes when it runs (bench/results.json), ignored by git."""
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0


@pytest.mark.parametrize("command", [["check", "--no-cache"], ["format", "--check", "--no-cache"]], ids=" ".join)
def test_ruff_finds_nothing(command):
    """`ruff check` (pyflakes, pycodestyle, imports, pyupgrade, bugbear) and `ruff format` (one layout):
    `ruff check --fix . && ruff format .` makes a tree pass."""
    ruff = Path(sys.executable).with_name("ruff")
    result = subprocess.run([str(ruff), *command, "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_module_and_link_a_document_names_exists(doc: Path):
    text = doc.read_text()
    missing = []
    for path in PATH.findall(text):
        path = path.split("::")[0].rstrip(".,:")
        if not (ROOT / path).exists() and not _generated(path):
            missing.append(path)
    for module in MODULE.findall(text):
        if (
            module.split(".")[0] in ("domain", "flows", "infra", "tests", "bench")
            and importlib.util.find_spec(module) is None
        ):
            missing.append(f"python -m {module}")
    for link in LINK.findall(text):
        if not link.startswith(("http://", "https://", "mailto:")) and not (doc.parent / link).exists():
            missing.append(f"link {link}")
    assert not missing, f"{doc.relative_to(ROOT)} names what does not exist: {missing}"


def test_the_world_builder_is_one_entry():
    """Tests, benchmarks and `make screenshots` build their world through `tests.support.world` alone: no
    one imports its parts (`tests/support/world/*.py`) by name, nor a world builder of its own."""
    part = re.compile(r"tests\.support\.world\.\w+|from tests\.support\.world import (?:poker|live|pusoy|access)\b")
    builder = ROOT / "tests" / "support" / "world"
    found = [
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for folder in ("tests", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if builder not in path.parents
        for m in part.finditer(path.read_text())
    ]
    assert not found, found
    others = [p for p in (ROOT / "tests").rglob("*world*.py") if builder not in p.parents]
    assert not others, others


def test_vulture_finds_no_dead_code_in_domain_flows_or_infra():
    """vulture (`[tool.vulture]` in pyproject.toml) reads the whole tree, so what the tests and the
    benchmarks use counts as used, and finds nothing unused in domain, flows or infra: what a framework
    calls is left out by its decorator or named in tests/dead_code_whitelist.py."""
    vulture = Path(sys.executable).with_name("vulture")
    result = subprocess.run([str(vulture)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode in (0, 3) and not result.stderr, result.stderr  # 3: it found dead code somewhere
    fields = _answer_fields()
    dead = [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("domain/", "flows/", "infra/"))
        and not (line.startswith("flows/web/api/") and _variable(line) in fields)
    ]
    assert not dead, "\n".join(dead)


def _variable(line: str) -> str | None:
    found = re.search(r"unused variable '(\w+)'", line)
    return found.group(1) if found else None


def _answer_fields() -> set[str]:
    """The fields of `/api/v1`'s models: Pydantic reads every one when it writes an answer (or a body),
    where vulture sees a class attribute nobody reads."""
    import importlib
    import pkgutil

    from pydantic import BaseModel

    import flows.web.api as api

    found: set[str] = set()
    for module in pkgutil.iter_modules(api.__path__):
        for value in vars(importlib.import_module(f"flows.web.api.{module.name}")).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseModel)
                and value.__module__.startswith("flows.web.api")
            ):
                found |= set(value.model_fields)
    return found

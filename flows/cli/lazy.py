"""Modules the CLI loads when a command first uses them, so `tourney` starts in a fraction of a second:
`--help`, and every command, imports only what that command touches (SQLAlchemy, Babel, Rich, Prefect
and WeasyPrint are loaded by the commands that use them). The standard library's `LazyLoader`."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy(name: str) -> ModuleType:
    """The module `name`, executed at its first attribute access (at once when already imported)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
    return module

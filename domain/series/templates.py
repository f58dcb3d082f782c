"""What a series may hold as its template: the settings of one tournament of its kind.

The settings are checked by the tournament rules of that kind when the series is added or edited,
so a template the rules refuse is refused at once, not at the first occurrence."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.errors import Problem

KINDS = ("poker", "pusoy")

# kind -> the tournament rules' own validator of creation settings
VALIDATORS: dict[str, Callable[[Mapping[str, Any]], list[Problem]]] = {}


def template_problems(kind: str, settings: Any) -> list[Problem]:
    if kind not in KINDS:
        return [Problem("series-kind-unknown", f"unknown tournament kind '{kind}'; use one of: {', '.join(KINDS)}")]
    if not isinstance(settings, Mapping):
        return [Problem("series-template-invalid", "the template must be a JSON object of tournament settings")]
    validator = VALIDATORS.get(kind)
    return validator(settings) if validator else []

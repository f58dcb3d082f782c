"""axe-core in the tests' browser (issue 40): the vendored script (tests/web/vendor/axe.min.js, only the
tests load it) injected into an open Playwright page and run on the whole document. `serious` says the
serious and critical violations, `violations` those of the impacts asked for (the every-page test asks
for moderate ones too), one line each: the rule, its impact and help, and each element it found (a CSS
selector) with axe's own words on why (a contrast's ratio and colours, say). The page's context needs
`bypass_csp=True`: the site's Content-Security-Policy refuses an injected script. Every browser test
uses this module; none keeps an axe helper of its own."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[1] / "web" / "vendor" / "axe.min.js"
SERIOUS = ("serious", "critical")
RUN = """(impacts) => axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
  .filter(v => impacts.includes(v.impact))
  .map(v => v.id + " (" + v.impact + ", " + v.help + "): " + v.nodes.map(n => n.target.join(" ")
    + ([...n.any, ...n.all, ...n.none].map(c => c.message).filter(Boolean).slice(0, 1).map(m => " [" + m + "]")[0] || ""))
    .join(", ")))"""


def violations(page, impacts=SERIOUS) -> list[str]:
    """The axe-core violations of `impacts` (minor, moderate, serious, critical) of the page as it shows
    now (none: [])."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN, list(impacts))


def serious(page) -> list[str]:
    """The serious and critical axe-core violations of the page as it shows now (none: [])."""
    return violations(page, SERIOUS)

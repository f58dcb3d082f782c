"""axe-core in the tests' browser (issue 40): the vendored script (tests/web/vendor/axe.min.js, only the
tests load it) injected into an open Playwright page and run on the whole document; `serious` says the
serious and critical violations, one line each: the rule, its impact and help, and each element it
found (a CSS selector) with axe's own words on why (a contrast's ratio and colours, say). The page's
context needs `bypass_csp=True`: the site's Content-Security-Policy refuses an injected script."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[1] / "web" / "vendor" / "axe.min.js"
SERIOUS = """() => axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations
  .filter(v => v.impact === "serious" || v.impact === "critical")
  .map(v => v.id + " (" + v.impact + ", " + v.help + "): " + v.nodes.map(n => n.target.join(" ")
    + ([...n.any, ...n.all, ...n.none].map(c => c.message).filter(Boolean).slice(0, 1).map(m => " [" + m + "]")[0] || ""))
    .join(", ")))"""


def serious(page) -> list[str]:
    """The serious and critical axe-core violations of the page as it shows now (none: [])."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(SERIOUS)

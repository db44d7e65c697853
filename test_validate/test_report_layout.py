"""The validated report in a real headless Chromium, at a desktop's 1280 CSS px and a phone's 390: the headline table
on the first screen, no sideways scrolling of the page, every table scrolling inside its own box, the "What was
verified" table fitting a desktop's column, and the plots' text at least ~9 CSS px on the phone. Measured in the
page; a screenshot of each first screen is kept, its path printed: in $SCIFACT_SCREENSHOT_DIR when set, else in a
directory of the system's temporary directory that outlives pytest's own (which keeps only its last few runs)."""

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

from fixtures.browser import chromium_page

from .comparisons import ValidatedReport

VIEWPORTS = (("desktop", 1280, 800, False), ("phone", 390, 844, True))
SMALLEST_PLOT_TEXT_PX = 9.0
MEASURE = r"""(() => {
  const headline = document.getElementById('headline').getBoundingClientRect();
  const tables = [...document.querySelectorAll('table')].map(table => {
    const box = table.parentElement;
    return {id: table.id, box: box.className, overflow: getComputedStyle(box).overflowX,
            boxRight: box.getBoundingClientRect().right, width: box.clientWidth, content: box.scrollWidth};
  });
  const text = [...document.querySelectorAll('svg text')].filter(t => t.getClientRects().length).map(t => {
    const m = t.getScreenCTM();
    return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
  });
  const media = [...document.styleSheets].flatMap(s => [...s.cssRules]).filter(r => r instanceof CSSMediaRule);
  return {pageWidth: document.scrollingElement.scrollWidth, width: innerWidth, height: innerHeight,
          headlineTop: headline.top, headlineBottom: headline.bottom, tables: tables, plotText: text,
          media: media.map(r => r.conditionText)};
})()"""
OPEN_EVERY_DETAIL = "document.querySelectorAll('details').forEach(d => { d.open = true; }); true"


def _fits_the_page(page: dict[str, Any], name: str) -> None:
    assert page["pageWidth"] <= page["width"], f"{name}: the page scrolls sideways ({page['pageWidth']} px)"
    for table in page["tables"]:
        assert table["box"] == "wide" and table["overflow"] == "auto", (name, table)  # scrolls inside its own box
        assert table["boxRight"] <= page["width"] + 0.5, (name, table)


@pytest.mark.real_model
@pytest.mark.browser
def test_the_report_reads_on_a_desktop_and_a_phone(validated_report: ValidatedReport, chromium: Path,
                                                   capsys: pytest.CaptureFixture[str], record_property: Any) -> None:
    html = validated_report.html
    shots: list[Path] = []
    directory = Path(os.environ.get("SCIFACT_SCREENSHOT_DIR") or tempfile.mkdtemp(prefix="scifact-report-screens-"))
    directory.mkdir(parents=True, exist_ok=True)
    measured: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    with chromium_page(chromium) as page:
        for name, width, height, mobile in VIEWPORTS:
            page.open(html, width, height, mobile=mobile)
            first = page.evaluate(MEASURE)
            shots.append(page.screenshot(directory / f"report-{name}-{width}px.png"))
            page.evaluate(OPEN_EVERY_DETAIL)
            measured[name] = first, page.evaluate(MEASURE)
    record_property("screenshots", [str(p) for p in shots])
    with capsys.disabled():
        print("\nreport screenshots: " + ", ".join(str(p) for p in shots))
    for name, (first, opened) in measured.items():
        assert first["width"] == next(w for n, w, _, _ in VIEWPORTS if n == name), first  # the viewport asked for
        assert first["headlineTop"] >= 0 and first["headlineBottom"] <= first["height"], (name, first)
        assert any("max-width" in condition for condition in first["media"]), first["media"]
        _fits_the_page(first, name)
        _fits_the_page(opened, name)
        assert opened["plotText"], f"{name}: no plot text rendered with every detail open"
    desktop, phone = measured["desktop"][1], measured["phone"][1]
    verified = next(t for t in desktop["tables"] if t["id"] == "verification")
    assert verified["content"] <= verified["width"], verified  # its sentences wrap to the column
    assert any(t["content"] > t["width"] for t in phone["tables"]), phone["tables"]  # some do scroll, in their box
    smallest = min(phone["plotText"])
    assert smallest >= SMALLEST_PLOT_TEXT_PX, f"plot text rendered at {smallest:.1f} CSS px on the phone"

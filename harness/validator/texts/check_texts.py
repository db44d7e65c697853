"""Every result figure of the bundle's texts held to the artifact it claims to come from (check `texts.figures`): one
report for CLAIMS.md, report.md, report.html and the exports, run after the artifacts were validated, with each
text's count of figures checked and what was not checked."""

from pathlib import Path

from ..core.report import Report
from .blocks import Block, markdown_blocks
from .exports import check_summary_csv, check_summary_json, latex_block
from .facts import Facts, gather
from .figures import Tally
from .html_blocks import html_blocks
from .labels import split_of
from .sentences import Place, check_sentence
from .tables import check_table

SUBJECT = "CLAIMS.md and the reports"
SHOWN = 12  # failing figures listed per text; the count says how many more
NEVER = ("the plots (SVG)", "the prose of each text outside its results (digests, dates, versions, the machine, "
         "load averages, the dataset's document count)")


def _walk(tally: Tally, blocks: list[Block], facts: Facts) -> None:
    section, split = "", None
    for block in blocks:
        if block.kind == "heading":
            named = split_of(block.text)
            if block.level <= 2:
                section, split = block.text, named
            elif named is not None:
                split = named
            if named is not None and (found := _count(block.text)) is not None:
                _heading_count(tally, block.line, named, found, section, facts)
        elif block.kind == "table":
            check_table(tally, block, split, facts)
        else:
            if (named := _paragraph_split(block.text)) is not None:
                split = named
            check_sentence(Place(tally, block.line, section, split), facts, block.text)


def _count(text: str) -> str | None:
    import re
    found = re.search(r"\((\d+) queries\)$", text)
    return found.group(1) if found else None


def _paragraph_split(text: str) -> str | None:
    import re
    found = re.match(r"^(held-out|calibration|all queries), \d+ queries\. Runs: ", text)
    return split_of(found.group(1)) if found else None


def _heading_count(tally: Tally, line: int, split: str, count: str, section: str, facts: Facts) -> None:
    if section.startswith("Systems") and split in facts.systems:
        tally.compare(line, f"the {split} heading's query count", [count], [facts.systems[split]["query_count"]],
                      f"the {split} systems artifact")
        return
    runs = [(mode, a) for (s, mode), a in facts.aggregates.items() if s == split]
    if not runs:
        tally.missing(line, f"the {split} heading's query count")
        return
    tally.compare(line, f"the {split} heading's query count", [count], [runs[0][1]["row_count"]],
                  facts.source(split, runs[0][0]))


def texts_of(bundle: Path) -> list[str]:
    """The texts this check reads, by their path in the bundle, where present."""
    names = ["CLAIMS.md", "report.md", "report.html", "exports/summary.csv", "exports/summary.json"]
    return [n for n in names if (bundle / n).is_file()] + sorted(
        p.relative_to(bundle).as_posix() for p in (bundle / "exports").glob("*.tex"))


def check_text(name: str, text: str, facts: Facts) -> Tally:
    tally = Tally(name)
    if name.endswith(".md"):
        _walk(tally, markdown_blocks(text), facts)
    elif name.endswith(".html"):
        _walk(tally, html_blocks(text), facts)
        tally.skip("the plots (SVG)")
    elif name.endswith(".csv"):
        check_summary_csv(tally, text, facts)
    elif name.endswith(".json"):
        check_summary_json(tally, text, facts)
    else:
        table = latex_block(text)
        if table is None:
            tally.skip("a LaTeX file without a booktabs table (\\toprule ... \\bottomrule)")
        else:
            _latex(tally, table, facts)
    return tally


def _latex(tally: Tally, table: Block, facts: Facts) -> None:
    from .tables import check_table as judge
    headers = [h.lower() if h in ("Split", "Mode", "Queries") else h for h in table.headers]
    for split in sorted({row.cells[0] for row in table.rows}):
        rows = [row for row in table.rows if row.cells[0] == split]
        sub = Block("table", table.line, table.text, headers=headers[1:],
                    rows=[type(row)(row.line, row.cells[1:]) for row in rows])
        judge(tally, sub, split_of(split) or split, facts)


def check_texts(bundle: Path, validated: list[str]) -> Report:
    """`validated`: the artifacts (paths in the bundle) the validator judged in this process."""
    facts = gather(bundle, validated)
    report = Report(SUBJECT)
    summary: dict[str, dict[str, object]] = {}
    for name in texts_of(bundle):
        try:
            text = (bundle / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            report.fail("texts.figures", f"{name} cannot be read as UTF-8 text ({exc}); fetch the bundle again")
            continue
        tally = check_text(name, text, facts)
        summary[name] = {"checked": tally.checked, "failed": len(tally.failures), "not_checked": tally.unchecked}
        for failure in tally.failures[:SHOWN]:
            report.fail("texts.figures", failure)
        if len(tally.failures) > SHOWN:
            report.fail("texts.figures", f"{name}: {len(tally.failures) - SHOWN} more figures differ from their "
                                         "artifacts")
        if not tally.failures:
            report.ok("texts.figures", f"{name}: {tally.checked} figures checked, every one equals its artifact")
    report.notes["texts"] = summary
    return report


def texts_line(summary: dict[str, dict[str, object]]) -> str:
    """The TEXTS line: each text's figures checked, and what was not checked."""
    parts = [f"{name}: {v['checked']} figures checked, "
             + ("every one equals its artifact" if not v["failed"] else f"{v['failed']} differ from their artifacts")
             for name, v in summary.items()]
    unchecked = sorted({f"{what} ({name})" for name, v in summary.items() for what in v["not_checked"]})  # type: ignore[attr-defined]
    return "; ".join(parts) + "; not checked: " + "; ".join([*NEVER, *unchecked])

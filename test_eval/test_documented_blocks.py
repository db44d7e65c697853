"""Every command block of README.md and docs/*.md is run by CI or says why not, and every relative link leads somewhere.

The default suite holds the pages to the rule (fixtures/markdown_docs.py says it): each ```bash block carries its
`ci:` comment, run blocks have distinct names, are valid bash and name no absolute path, and each relative link's
file and heading anchor exist. `pytest -m documented_blocks -p no:xdist -s` (CI, after `-m documented_path` on the
same fresh clone) runs every `ci: run` block but the two test_documented_path.py runs, verbatim with bash from the
clone's root, README.md first and then docs/ by name, each page in order. Every block reads what the publishing path
and the own-system path left in work-dir/ (fixture, store, results, comparisons, work-dir/results-tfidf) and none
reads what another block writes, so one failing block leaves the others' verdicts standing.
"""

import os
import subprocess
import time
from pathlib import Path

import pytest

from fixtures.markdown_docs import (
    OTHER_SHELLS,
    ROOT,
    Block,
    Directive,
    absolute_paths,
    anchors,
    blocks,
    broken,
    directive,
    links,
    pages,
    slug,
    spends_heldout,
)
from harness.suite.options import SPEND_HELDOUT


def shell_blocks(root: Path = ROOT) -> list[tuple[Block, Directive | None, list[str]]]:
    found: list[tuple[Block, Directive | None, list[str]]] = []
    for page in pages(root):
        for block in blocks(page, root):
            if block.language in OTHER_SHELLS:
                found.append((block, None, [f"{block.where()}: a ```{block.language} block; write it as "
                                            "```bash with its ci comment"]))
            elif block.language == "bash":
                found.append((block, *directive(block)))
    return found


def run_blocks() -> list[tuple[Block, Directive]]:
    return [(block, rule) for block, rule, _ in shell_blocks() if rule is not None and rule.run]


def problems(root: Path = ROOT) -> list[str]:
    """Everything wrong with the pages' command blocks and links, each named by page and line."""
    found = [problem for _, _, messages in shell_blocks(root) for problem in messages]
    names: dict[str, str] = {}
    for block, rule, _ in shell_blocks(root):
        if rule is None or not rule.run:
            continue
        assert rule.name is not None
        if rule.name in names:
            found.append(f"{block.where()}: the run block name {rule.name!r} is taken ({names[rule.name]})")
        names.setdefault(rule.name, block.where())
        check = subprocess.run(["bash", "-n"], input=block.text, text=True, capture_output=True, timeout=30,
                               check=False)
        if check.returncode != 0:
            found.append(f"{block.where()}: not valid bash: {check.stderr.strip()}")
        found += [f"{block.where()}: an absolute path in a run block: {word}" for word in absolute_paths(block.text)]
    for page in pages(root):
        found += [reason for link in links(page, root) if (reason := broken(link)) is not None]
    return found


def test_the_pages_hold_to_the_rule() -> None:
    assert problems() == []


def test_the_rule_names_every_kind_of_mistake(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "# Top\n\n## Same\n\n## Same\n\n[ok](docs/page.md#what-the-same-fixture-means) [ok](#same-1)\n\n"
        "```bash\necho bare\n```\n\n<!-- ci: run twice -->\n```bash\necho one\n```\n\n"
        "<!-- ci: run twice -->\n```bash\nif then\n```\n\n<!-- ci: runs wrongly -->\n```bash\necho x\n```\n\n"
        "<!-- documented-path:start -->\n<!-- ci: not run: no -->\n```bash\necho y\n```\n\n"
        "```sh\necho z\n```\n\n<!-- ci: run absolute -->\n```bash\ncat /etc/hostname ~/x --out=/tmp/y\n```\n",
        encoding="utf-8")
    (tmp_path / "docs" / "page.md").write_text(
        '# Page\n\n## What "the same fixture" means\n\n<!-- ci: not run: an example -->\n```bash\n'
        "# [not a link](nowhere.md)\n```\n\n"
        "[gone](missing.md) [no heading](../README.md#nothing) [wrapped\nover lines](#gone-too) [abs](/README.md) "
        "`[code](nowhere.md)` [web](https://example.org/x.md#y)\n", encoding="utf-8")
    found = problems(tmp_path)
    assert [p.split(": syntax error")[0] for p in found] == [
        "README.md:9: a ```bash block without `<!-- ci: run NAME -->` or `<!-- ci: not run: REASON -->` on the line "
        "above its fence",
        "README.md:24: '<!-- ci: runs wrongly -->' is neither `<!-- ci: run NAME -->`, "
        "`<!-- ci: run NAME (exit N) -->` nor `<!-- ci: not run: REASON -->`",
        "README.md:30: the documented-path block is run by test_documented_path.py; it cannot say `ci: not run`",
        "README.md:34: a ```sh block; write it as ```bash with its ci comment",
        "README.md:19: the run block name 'twice' is taken (README.md:14)",
        "README.md:19: not valid bash: bash: line 1",
        "README.md:39: an absolute path in a run block: /etc/hostname",
        "README.md:39: an absolute path in a run block: ~/x",
        "README.md:39: an absolute path in a run block: --out=/tmp/y",
        "docs/page.md:10: (missing.md) points at missing.md, which is not in the repository",
        "docs/page.md:10: (../README.md#nothing): README.md has no heading whose anchor is #nothing",
        "docs/page.md:10: (#gone-too): page.md has no heading whose anchor is #gone-too",
        "docs/page.md:11: (/README.md) is an absolute link; link relative to the page",
    ], found


def test_anchors_follow_githubs_rule(tmp_path: Path) -> None:
    assert slug('What "the same fixture" means') == "what-the-same-fixture-means"
    assert slug("The file: `DIR/scifact-systems-<split>.json`") == "the-file-dirscifact-systems-splitjson"
    assert slug("What the validator checks (`python -m harness.validator --comparison FILE`)") == \
        "what-the-validator-checks-python--m-harnessvalidator---comparison-file"
    assert slug("The rules of `search`, **bold** and [a link](x.md)") == "the-rules-of-search-bold-and-a-link"
    assert slug("fts_only \u2212 hybrid") == "fts_only--hybrid"  # a minus sign is punctuation
    page = tmp_path / "p.md"
    page.write_text("# A\n\n```bash\n# B\n```\n\n## A\n\n### A ##\n", encoding="utf-8")
    assert anchors(page) == {"a", "a-1", "a-2"}


def test_what_looks_at_the_held_out_split() -> None:
    spending = {rule.name for block, rule in run_blocks() if spends_heldout(block.text)}
    assert spending == {"documented-path", "plugin-path", "run-files"}
    assert spends_heldout(".venv/bin/python -m harness evaluate --split heldout \\\n  --corpus c\n")
    assert spends_heldout(".venv/bin/python -m harness run $TFIDF \\\n  --split all\n")
    assert spends_heldout("python -m pytest -m 'heldout or final' --scifact-work-dir=w\n")
    assert not spends_heldout("python -m harness compare --output-dir w --split heldout\n")
    assert not spends_heldout("python -m harness run --split calibration  # not --split heldout\n")


def _ci_blocks() -> list[tuple[Block, Directive]]:
    return [(block, rule) for block, rule in run_blocks() if rule.marker is None]


@pytest.mark.documented_blocks
@pytest.mark.parametrize(("block", "rule"), _ci_blocks(), ids=[rule.name for _, rule in _ci_blocks()])
def test_the_block_runs_verbatim_from_the_clone_root(block: Block, rule: Directive,
                                                     request: pytest.FixtureRequest) -> None:
    if not os.environ.get("SCIFACT_ARCHIVE"):
        pytest.fail("set SCIFACT_ARCHIVE as the README's first command does", pytrace=False)
    for left in ("work-dir/results/freeze.json", "work-dir/results/scifact-comparison-heldout.json",
                 "work-dir/results-tfidf/freeze.json"):
        if not (ROOT / left).is_file():
            pytest.fail(f"{left} is missing: the blocks read what the documented path leaves; run "
                        "`pytest -m documented_path --scifact-spend-heldout` on this clone first", pytrace=False)
    if spends_heldout(block.text) and not request.config.getoption(SPEND_HELDOUT):
        pytest.fail(f"{block.where()} ({rule.name}) looks at the held-out split: pass {SPEND_HELDOUT}", pytrace=False)
    env = {k: v for k, v in os.environ.items() if k not in ("SCIFACT_WORK_DIR", "PYTEST_ADDOPTS", "PYTHONPATH")}
    started = time.monotonic()
    result = subprocess.run(["bash", "-c", "set -euo pipefail\n" + block.text], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=1800, check=False)
    output = result.stdout + result.stderr
    print(f"{rule.name} ({block.where()}): exit {result.returncode} in {time.monotonic() - started:.1f} s\n{output}")
    assert result.returncode == rule.exit_code, f"{block.where()}: exit {result.returncode}\n{output[-4000:]}"
    assert "Traceback" not in output, output[-4000:]

"""Publishing a system from outside the clone: its source travels with the bundle, and CLAIMS.md and the report speak
of that system. A lexical system of its own, written at test time into a directory outside the clone (one module
and a helper module beside it), returns only the documents that share a word with the query, so some queries get
fewer than top_k results; it is taken through calibration, the freeze, held-out, all queries and the bundle."""

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.clean_checkout import mark_clean_checkout
from fixtures.word_system import TOKENS, word_system
from harness.corpus.contract import Contract
from harness.errors import RefusedError
from harness.evaluation.gates.freeze import FreezeError, current_record, freeze_configuration
from harness.evaluation.history.heldout_record import RECORD_NAME, RECORD_VARIABLE
from harness.evaluation.receipts.provenance import DIGEST_ONLY, OWN_WORK_TREE
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_bytes, sha256_file
from harness.publish.bundle import make_bundle
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate

SPEC = "overlap:SYSTEM"
MODULES = ("overlap", "tokens")
OVERLAP = word_system("tokens", "word-overlap")


@dataclass(frozen=True)
class Evaluated:
    root: Path
    plugin: Path
    out: Path
    store: Path


def _write_plugin(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "tokens.py").write_text(TOKENS, encoding="utf-8")
    (directory / "overlap.py").write_text(OVERLAP, encoding="utf-8")
    return directory


@pytest.fixture
def plugin_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's directory, importable, with no git repository above it that git could find."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    plugin = _write_plugin(tmp_path / "mysys")
    monkeypatch.syspath_prepend(str(plugin))
    for name in MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    return plugin


def _calibrate(corpus: CorpusFixture, contract: Contract, root: Path) -> None:
    run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out", split="calibration",
                         system=SPEC), contract)


def _freeze(corpus: CorpusFixture, contract: Contract, root: Path, *, allow_dirty: bool) -> None:
    system = make_builder(contract.namespace, SearchConfig(), SPEC).open(corpus, root / "store")
    freeze_configuration(fixture=corpus, system=system, contract=contract, modes=("fts_only",),
                         output_dir=root / "out", argv=[], allow_dirty=allow_dirty, replace=True,
                         allow_failed_calibration=False)


@pytest.fixture(scope="module")
def evaluated(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[Evaluated]:
    """Calibration, freeze (--allow-dirty: the clone running the tests may be dirty), held-out and all queries."""
    root = tmp_path_factory.mktemp("plugin-publish")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECORD_VARIABLE, str(root / "looks" / RECORD_NAME))
        patch.setenv("GIT_CEILING_DIRECTORIES", str(root))
        plugin = _write_plugin(root / "mysys")
        patch.syspath_prepend(str(plugin))
        for name in MODULES:
            patch.delitem(sys.modules, name, raising=False)
        _calibrate(tiny_corpus, tiny, root)
        _freeze(tiny_corpus, tiny, root, allow_dirty=True)
        for split in ("heldout", "all"):
            run_split(Evaluation(corpus=tiny_corpus.path, store_dir=root / "store", output_dir=root / "out",
                                 split=split, system=SPEC, modes=("fts_only",)), tiny)
        mark_clean_checkout(root / "out")
        yield Evaluated(root, plugin, root / "out", root / "store")


def _lists_left_empty(text: str) -> list[str]:
    """Every line announcing a list (ending in a colon) that no list item follows."""
    lines = text.splitlines()
    empty = []
    for i, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            following = next((other for other in lines[i + 1:] if other.strip()), "")
            if not following.startswith("- "):
                empty.append(line)
    return empty


def _short(out: Path, split: str) -> tuple[int, int]:
    """Queries of a split with fewer than 10 results, counted from its rows; and all its queries."""
    rows = [json.loads(line) for line in (out / f"tiny-test-fts_only-{split}.jsonl").read_text().splitlines()]
    return sum(len(row["ranked_doc_ids"]) < 10 for row in rows), len(rows)


def test_the_bundle_holds_the_system_source_and_claims_speak_of_that_system(evaluated: Evaluated) -> None:
    freeze = json.loads((evaluated.out / "freeze.json").read_bytes())
    assert freeze["source"]["system_tree"] == {"kind": DIGEST_ONLY, "git": None}
    bundle = make_bundle(evaluated.out, evaluated.root / "bundle")
    receipt = json.loads((bundle / "artifacts/tiny-test-fts_only-heldout.aggregate.json").read_bytes())["receipt"]
    system = receipt["system"]
    expected = {"system-source/overlap.py": system["source"]["files"]["overlap.py"],
                "system-source/tokens.py": system["modules"]["tokens"]["sha256"]}
    assert {p.relative_to(bundle).as_posix() for p in (bundle / "system-source").rglob("*") if p.is_file()} == set(
        expected)  # the source file and the helper module, not the editable harness's finder the worker loaded
    manifest = json.loads((bundle / "MANIFEST.json").read_bytes())["files"]
    for name, digest in expected.items():
        assert sha256_file(bundle / name) == digest == manifest[name]
        assert (bundle / name).read_bytes() == (evaluated.plugin / Path(name).name).read_bytes()
    index = json.loads((bundle / "system-source.json").read_bytes())
    # where it was read from, in words: the bundle holds no local path
    assert index["files"]["system-source/tokens.py"]["from"] == "[the system's source root]/tokens.py"

    claims = (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    assert ("- The system's source: `system-source/`, 2 files (1 file of its source, 1 more module its worker "
            "loaded), each matching the receipt's sha256 (where each was read from: `system-source.json`). To "
            "re-run:") in claims
    assert "`python -m harness run --system overlap:SYSTEM`" in claims
    assert "the source is bound by digest only" in claims
    assert "every document" not in claims
    assert ("Latency scope: inside the system's worker, around its search call; what the system does inside is its "
            "own: it declares a lexical lane: the number of distinct query words in the document") in claims
    assert _lists_left_empty(claims) == []
    assert "Unavailable capabilities: none recorded" in claims
    overlap = ("The all-query split holds every test query, the 2 calibration queries among them, which the "
               "configuration was chosen on: its numbers and comparisons are not independent of calibration")
    reports = [(bundle / name).read_text(encoding="utf-8") for name in ("report.md", "report.html")]
    for text in (claims, *reports):
        assert overlap in text
        assert "every document" not in text
        assert "inside the system&#x27;s worker" in text or "inside the system's worker" in text
    counted = {split: _short(evaluated.out, split) for split in ("calibration", "heldout", "all")}
    assert counted["all"][0] > 0  # the system does return short lists
    for split, (short, total) in counted.items():
        sentence = f"fts_only {split}: {short} of {total} queries returned fewer than 10 results"
        assert (f"- {sentence}" in claims) == (short > 0), split
        for text in reports:
            assert (sentence in text) == (short > 0), split


def test_a_source_file_changed_after_the_run_refuses_the_bundle_naming_it(evaluated: Evaluated) -> None:
    for name in ("overlap.py", "tokens.py"):  # the system's own module, and the helper its worker loaded
        path = evaluated.plugin / name
        original = path.read_bytes()
        path.write_bytes(original + b"# edited after the run\n")
        try:
            with pytest.raises(RefusedError, match=re.escape(f"the system's source file {path.resolve()} does not "
                                                             "match the receipts' sha256")) as caught:
                make_bundle(evaluated.out, evaluated.root / f"refused-{name}")
            assert f"it is now {sha256_bytes(path.read_bytes())}" in str(caught.value)
        finally:
            path.write_bytes(original)
        assert not (evaluated.root / f"refused-{name}").exists()
        assert not list(evaluated.root.glob(f".refused-{name}.partial-*"))


def _git(directory: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(directory), "-c", "user.name=test", "-c", "user.email=test@example.org",
                           *args], capture_output=True, text=True, check=True).stdout.strip()


def test_a_plugin_tree_with_uncommitted_changes_refuses_the_freeze(plugin_outside: Path, tiny_corpus: CorpusFixture,
                                                                   tiny: Contract, tmp_path: Path,
                                                                   own_heldout_record: Path) -> None:
    (plugin_outside / "NOTES.md").write_text("a word-overlap system\n", encoding="utf-8")
    (plugin_outside / ".gitignore").write_text("__pycache__/\n", encoding="utf-8")  # what importing it writes
    _git(plugin_outside, "init", "-q")
    _git(plugin_outside, "add", ".")
    _git(plugin_outside, "commit", "-q", "-m", "the system")
    (plugin_outside / "NOTES.md").write_text("a word-overlap system, changed\n", encoding="utf-8")  # not committed
    root = plugin_outside.resolve()
    _calibrate(tiny_corpus, tiny, tmp_path)
    with pytest.raises(FreezeError, match=re.escape(f"the system's own work tree {root} (NOTES.md)")):
        _freeze(tiny_corpus, tiny, tmp_path, allow_dirty=False)
    assert not (tmp_path / "out" / "freeze.json").exists()
    _freeze(tiny_corpus, tiny, tmp_path, allow_dirty=True)  # --allow-dirty: recorded
    head = _git(plugin_outside, "rev-parse", "HEAD")
    tree = json.loads((tmp_path / "out" / "freeze.json").read_bytes())["source"]["system_tree"]
    assert (tree["kind"], tree["git"]["commit"], tree["git"]["dirty"]) == (OWN_WORK_TREE, head, True)
    # a held-out run under that freeze is not eligible, however clean the clone: the system's own tree was dirty
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=tmp_path / "store", output_dir=tmp_path / "out",
                         split="heldout", system=SPEC, modes=("fts_only",)), tiny)
    mark_clean_checkout(tmp_path / "out")
    report = validate(tmp_path / "out" / "tiny-test-fts_only-heldout.aggregate.json")
    [clean] = [check for check in report.checks if check.name == "source.clean"]
    assert clean.status == "fail" and "the system's own work tree at the freeze" in clean.line(), clean.line()
    assert not report.eligible
    _git(plugin_outside, "commit", "-q", "-am", "notes")
    system = make_builder(tiny.namespace, SearchConfig(), SPEC).open(tiny_corpus, tmp_path / "store")
    now = current_record(fixture=tiny_corpus, system=system, contract=tiny, modes=("fts_only",), argv=[],
                         allow_dirty=False)["source"]["system_tree"]
    assert (now["git"]["commit"], now["git"]["dirty"]) == (_git(plugin_outside, "rev-parse", "HEAD"), False)

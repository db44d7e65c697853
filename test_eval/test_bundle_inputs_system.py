"""A system of its own, bundled with a comparison against the built-in system, judged by a reader who has none of the
publisher's files: the system is replayed from the bundle's `system-source/` against the carried fixture and store,
the built-in run of the comparison is validated against its own carried store, and a module whose bytes differ in
`system-source/` is refused, named."""

import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from fixtures.archives import tiny_archive
from fixtures.bundle_reader import fresh_reader, out_of_reach, reseal
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.word_system import TOKENS, word_system
from harness.corpus.contract import Contract
from harness.evaluation.comparison.run_specs import parse_run
from harness.evaluation.comparison.systems_artifact import SystemsRequest, compare_systems
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.history.heldout_record import RECORD_NAME, RECORD_VARIABLE
from harness.evaluation.run_split import Evaluation, run_split
from harness.evaluation.system_replay import replay, replay_all
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.publish.bundle import make_bundle
from harness.publish.verdicts import validator_judgement
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.validator.bundle_manifest import manifest_problems
from harness.validator.cli import main

SPEC = "wordhits:SYSTEM"
MODULES = ("wordhits", "wordhits_tokens")


@dataclass(frozen=True)
class Published:
    bundle: Path
    publishers: tuple[Path, ...]  # every directory of the publisher's the bundle was made from


def _evaluate(corpus: CorpusFixture, contract: Contract, root: Path, spec: str) -> Path:
    out, store = root / "out", root / "store"
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="calibration", system=spec,
                         modes=("fts_only",)), contract)
    system = make_builder(contract.namespace, SearchConfig(), spec).open(corpus, store)
    freeze_configuration(fixture=corpus, system=system, contract=contract, modes=("fts_only",), output_dir=out,
                         argv=[], allow_dirty=True, replace=False, allow_failed_calibration=False)
    run_split(Evaluation(corpus=corpus.path, store_dir=store, output_dir=out, split="heldout", system=spec,
                         modes=("fts_only",)), contract)
    mark_clean_checkout(out)
    return out


@pytest.fixture(scope="module")
def published(tiny_corpus: CorpusFixture, tiny: Contract, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[Published]:
    """The own system and the built-in one, each calibrated, frozen and run on held-out from a private copy of the
    tiny fixture; compared; the own system's output directory bundled."""
    root = tmp_path_factory.mktemp("inputs-system")
    fixture_dir = root / "fixture"
    fixture_dir.mkdir()
    sidecar = tiny_corpus.data["vectors"]["file"]
    for name in (tiny_corpus.path.name, sidecar):
        shutil.copyfile(tiny_corpus.path.parent / name, fixture_dir / name)
    corpus = load_fixture(fixture_dir / tiny_corpus.path.name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(RECORD_VARIABLE, str(root / "looks" / RECORD_NAME))
        patch.setenv("GIT_CEILING_DIRECTORIES", str(root))
        source = root / "mysys"
        source.mkdir()
        (source / "wordhits.py").write_text(word_system("wordhits_tokens", "word-hits"), encoding="utf-8")
        (source / "wordhits_tokens.py").write_text(TOKENS, encoding="utf-8")
        patch.syspath_prepend(str(source))
        for name in MODULES:
            patch.delitem(sys.modules, name, raising=False)
        mine = _evaluate(corpus, tiny, root / "mine", SPEC)
        builtin = _evaluate(corpus, tiny, root / "builtin", "builtin")
        compare_systems(SystemsRequest(output_dir=mine, split="heldout",
                                       runs=[parse_run(f"builtin={builtin}"), parse_run(f"mine={mine}")]),
                        validator_judgement)
        bundle = make_bundle(mine, root / "published" / "bundle")
        yield Published(bundle, (fixture_dir, source, root / "mine", root / "builtin"))


@pytest.fixture
def reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fresh_reader(tmp_path, monkeypatch)


def _judged(published: Published, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    archive = tiny_archive(tmp_path / "tiny.zip")
    with out_of_reach(*published.publishers):
        code = main(["--bundle", str(bundle), "--archive", str(archive)])
    return code, capsys.readouterr().out


def _lines(out: str, check: str) -> list[str]:
    return [line for line in out.splitlines() if f" {check}:" in line]


def test_the_bundle_carries_each_compared_runs_store(published: Published) -> None:
    listed = json.loads((published.bundle / "MANIFEST.json").read_bytes())["files"]
    assert {"inputs/store/words.json", "inputs/store/ledger.sqlite3", "inputs/runs/builtin/store/store.json",
            "inputs/runs/builtin/store/dense.f32", "inputs/runs/builtin/store/ledger.sqlite3",
            "system-source/wordhits.py", "system-source/wordhits_tokens.py"} <= set(listed)
    assert not [name for name in listed if name.startswith("inputs/runs/mine/")]  # the bundle's own store, once
    receipt = json.loads((published.bundle / "artifacts/tiny-test-fts_only-heldout.aggregate.json").read_bytes())
    modules = receipt["receipt"]["system"]["modules"]
    assert modules["wordhits_tokens"] == {"source_path": "wordhits_tokens.py",
                                          "sha256": listed["system-source/wordhits_tokens.py"]}


def test_an_own_system_is_replayed_from_the_bundle_alone(published: Published, reader: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    bundle = Path(shutil.copytree(published.bundle, tmp_path / "elsewhere" / "bundle"))
    code, out = _judged(published, bundle, tmp_path, capsys)
    assert code == 0, out
    assert out.splitlines()[-1].startswith("BUNDLE       ELIGIBLE for a claim"), out
    assert "ELIGIBLE: artifacts/tiny-test-systems-heldout.json:" in out, out
    replayed = _lines(out, "replay.lexical")
    assert replayed and all(line.startswith("PASS") and "replayed through the system" in line
                            for line in replayed), replayed
    modules = _lines(out, "system.modules")
    assert modules and all(line.startswith("PASS") for line in modules), modules  # its own re-hashed from the bundle
    assert manifest_problems(bundle) == []  # the replay wrote nothing into the bundle


def test_a_module_that_differs_in_the_bundles_source_is_refused_naming_it(
        published: Published, reader: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = Path(shutil.copytree(published.bundle, tmp_path / "elsewhere" / "bundle"))
    helper = bundle / "system-source" / "wordhits_tokens.py"
    helper.write_text(helper.read_text(encoding="utf-8").replace("\\w\\w+", "\\w+"), encoding="utf-8")
    reseal(bundle)
    code, out = _judged(published, bundle, tmp_path, capsys)
    assert code == 1, out
    modules = _lines(out, "system.modules")
    assert modules and all(line.startswith("FAIL") and "wordhits_tokens" in line for line in modules), modules
    replayed = _lines(out, "replay.lexical")
    assert replayed and all(not line.startswith("PASS") and "modules.wordhits_tokens" in line
                            for line in replayed), replayed
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1]


def test_a_scope_that_hides_an_earlier_look_is_refused_by_the_reader(
        published: Published, reader: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The built-in run was frozen after the own system's held-out look: the comparison and CLAIMS.md say the held-out
    queries were not unseen; a publisher who rewrites that to "unseen" and reseals is refused by the reader."""
    bundle = Path(shutil.copytree(published.bundle, tmp_path / "elsewhere" / "bundle"))
    path = bundle / "artifacts" / "tiny-test-systems-heldout.json"
    document = json.loads(path.read_bytes())
    attested = "as the publisher's attested held-out record shows"
    honest = (f"the {document['query_count']} held-out queries, not unseen before the freeze: 1 earlier held-out look "
              f"at tiny-test, {attested}")
    assert document["scope"] == honest
    assert f"Scope: {honest}." in (bundle / "CLAIMS.md").read_text(encoding="utf-8")
    document["scope"] = f"the {document['query_count']} held-out queries, unseen before the freeze {attested}"
    path.write_text(json.dumps(document), encoding="utf-8")
    reseal(bundle)
    code, out = _judged(published, bundle, tmp_path, capsys)
    assert code == 1, out
    failed = _lines(out, "systems.experiment")
    assert failed and all(line.startswith("FAIL") and "the scope reads" in line for line in failed), failed
    assert "NOT ELIGIBLE for a claim" in out.splitlines()[-1]


def test_the_own_systems_aggregates_are_replayed_in_one_process(
        published: Published, reader: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bundle = Path(shutil.copytree(published.bundle, tmp_path / "elsewhere" / "bundle"))
    with out_of_reach(*published.publishers):
        code = main(["--bundle", str(bundle), "--archive", str(tiny_archive(tmp_path / "tiny.zip"))])
    captured = capsys.readouterr()
    assert code == 0, captured.out
    assert "the live system of its own asked again: 2 aggregates replayed in one process" in captured.err, (
        captured.err)


def test_one_replay_of_many_aggregates_answers_each_as_its_own_replay(published: Published) -> None:
    mine = published.publishers[2] / "out"
    aggregates = sorted(mine.glob("*.aggregate.json"))
    assert len(aggregates) == 2
    together = replay_all(aggregates)
    assert list(together) == [str(path) for path in aggregates]
    assert together == {str(path): replay(path) for path in aggregates}
    assert all(answers["top_k"] for answers in together.values())

"""The second example system, examples/tfidf_hybrid.py (TF-IDF on scikit-learn, the fixture's dense lane, RRF): its
three modes calibrated, frozen and run on held-out through the command line, each aggregate eligible under the
validator, which recomputes the hybrid's fused scores, replays its dense lane from the fixture and asks the live
system again for its lexical lane; its lexical lane is the TF-IDF cosine computed here from the definitions; its
build is idempotent, deterministic and refuses a directory built from another corpus or configuration."""

import dataclasses
import importlib
import importlib.metadata
import json
import math
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
from sklearn.metrics.pairwise import cosine_similarity

from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cli import run_tiny_cli
from harness.corpus.contract import Contract
from harness.fixture.corpus_fixture import CorpusFixture
from harness.systems.plugin import Corpus
from harness.systems.plugin.adapter import corpus_of
from harness.validator import stored as stored_verdicts
from harness.validator.cli import main as validator_main
from harness.validator.system import check_through_system
from harness.validator.verdicts.store import Lookup, lookup

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SPEC = "tfidf_hybrid:SYSTEM"
MODES = ("fts_only", "vector_only", "hybrid")
THROUGH = "replayed through the live system, not independently recomputed"
INDEPENDENT = "recomputed independently from the fixture's vectors"
LANES = {"fts_only": {"lexical": THROUGH}, "vector_only": {"dense": INDEPENDENT},
         "hybrid": {"lexical": THROUGH, "dense": INDEPENDENT, "fusion": THROUGH}}
PASSED = {"fts_only": {"replay.lexical"}, "vector_only": {"replay.dense", "rows.exact_backend"},
          "hybrid": {"replay.lexical", "replay.dense", "rows.fusion", "rows.exact_backend"}}


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    monkeypatch.delitem(sys.modules, "tfidf_hybrid", raising=False)
    return importlib.import_module("tfidf_hybrid")


@pytest.fixture
def corpus(tiny_corpus: CorpusFixture, tiny: Contract) -> Corpus:
    return corpus_of(tiny_corpus, tiny.namespace)


def test_the_example_is_calibrated_frozen_held_out_and_eligible_through_the_command_line(
        tiny_corpus: CorpusFixture, tmp_path: Path, own_heldout_record: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # the command line in this process (its process is not the subject here); the system's worker processes find
    # the example on PYTHONPATH, as they would from a shell
    out = tmp_path / "out"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(EXAMPLES)]))
    monkeypatch.syspath_prepend(str(EXAMPLES))  # PYTHONPATH as this process reads it (and the validator's replay)
    monkeypatch.chdir(tmp_path)
    system = ["--corpus", str(tiny_corpus.path), "--store-dir", str(tmp_path / "store"), "--system", SPEC,
              "--output-dir", str(out)]
    for command in (["run", *system, "--split", "calibration", "--no-validate"], ["freeze", *system, "--allow-dirty"],
                    ["run", *system, "--split", "heldout", "--no-validate"]):
        done = run_tiny_cli(command, capsys)
        assert done.code == 0, done.err
    assert all(mode in done.out for mode in MODES)
    mark_clean_checkout(out)  # the work tree may have changes; a clean clone's receipts would say so
    runs = [(mode, split) for split in ("calibration", "heldout") for mode in MODES]
    reports_dir = tmp_path / "reports"
    reports_dir.mkdir()
    aggregates = [str(out / f"tiny-test-{mode}-{split}.aggregate.json") for mode, split in runs]
    replays: list[int] = []  # each replay process the validator starts, by how many aggregates it asks
    started = check_through_system._run

    def counted(aggregates: Sequence[Path], *places: Path | None) -> tuple[dict[str, Any] | None, str]:
        replays.append(len(aggregates))
        return started(aggregates, *places)
    monkeypatch.setattr(check_through_system, "_run", counted)
    looked_up: list[Path] = []  # each stored-verdict lookup, by aggregate

    def looks(home: Path, aggregate: Path, *rest: Any) -> Lookup:
        looked_up.append(aggregate)
        return lookup(home, aggregate, *rest)
    monkeypatch.setattr(stored_verdicts, "lookup", looks)
    capsys.readouterr()
    code = validator_main([*aggregates, "--json", str(reports_dir)])  # all six in one validator, as a reader types it
    said = capsys.readouterr().err
    assert said.count("asked again") == 1 and "asked again: 6 aggregates replayed in one process" in said, said
    assert replays == [6]  # and every check read its answers from that one process
    for mode, split in runs:
        report: dict[str, Any] = json.loads(
            (reports_dir / f"tiny-test-{mode}-{split}.validation.json").read_text(encoding="utf-8"))
        problems = [f"{c['name']}: {c['detail']}" for c in report["checks"] if c["status"] != "pass"]
        assert report["eligible"], f"{mode} {split}: {problems}"
        passed = {c["name"] for c in report["checks"] if c["status"] == "pass"}
        assert PASSED[mode] | {"store.parts", "system.source", "freeze"} <= passed, f"{mode} {split}"
        assert report["notes"]["lane_verification"] == LANES[mode]
    assert code == 0
    assert sorted(map(str, looked_up)) == sorted(aggregates)  # none stored yet: each looked up once all the same
    looked_up.clear()
    assert validator_main(aggregates) == 0  # the stored verdicts answer: the live system is not asked again
    assert sorted(map(str, looked_up)) == sorted(aggregates)  # each looked up once, while grouping the replays
    said = capsys.readouterr().err
    assert said.count("reused") == len(runs) and "asked again" not in said, said
    receipts = [json.loads((out / f"tiny-test-hybrid-{s}.aggregate.json").read_bytes())["receipt"]
                for s in ("calibration", "heldout")]
    assert receipts[0]["system"] == receipts[1]["system"]
    assert receipts[0]["system"]["distributions"]["scikit-learn"] == importlib.metadata.version("scikit-learn")
    assert set(receipts[0]["store"]["parts"]) == {"vocabulary", "idf", "data", "indices", "indptr", "manifest"}


def _terms(text: str) -> Counter[str]:
    """Lowercased, accents stripped (NFKD), words of two or more characters, English stop words dropped."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return Counter(t for t in re.findall(r"\b\w\w+\b", plain) if t not in ENGLISH_STOP_WORDS)


def _tfidf_cosines(documents: list[str], query: str) -> NDArray[np.float64]:
    """tf 1 + ln(count), idf ln((1 + n) / (1 + df)) + 1, each vector l2-normalised, cosine as their inner product."""
    counts = [_terms(d) for d in documents]
    df = Counter(term for c in counts for term in c)
    idf = {term: math.log((1 + len(counts)) / (1 + df[term])) + 1 for term in df}

    def unit(c: Counter[str]) -> dict[str, float]:
        weights = {t: (1 + math.log(n)) * idf[t] for t, n in c.items() if t in idf}
        norm = math.sqrt(sum(w * w for w in weights.values()))
        return {t: w / norm for t, w in weights.items()}

    wanted = unit(_terms(query))
    return np.array([sum(w * unit(c).get(t, 0.0) for t, w in wanted.items()) for c in counts])


def test_the_lexical_lane_is_the_tfidf_cosine_computed_independently(
        example: ModuleType, corpus: Corpus, tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    system = example.TfidfHybrid()
    system.build(corpus, tmp_path)
    documents = [f"{title} {text}" for title, text in zip(corpus.titles, corpus.texts, strict=True)]
    # scikit-learn's own computation, with its defaults but for the three settings the configuration changes
    fitted = TfidfVectorizer(strip_accents="unicode", stop_words="english", sublinear_tf=True)
    matrix = fitted.fit_transform(documents)
    several = 0
    for query in tiny_corpus.data["queries"]:
        expected = _tfidf_cosines(documents, query["text"])
        ranked = sorted(np.flatnonzero(expected > 0), key=lambda i: (-expected[i], corpus.doc_ids[i]))[:10]
        results = system.search("fts_only", query["text"], None, 10)
        assert [r.doc_id for r in results] == [corpus.doc_ids[i] for i in ranked], query["query_id"]
        np.testing.assert_allclose([r.score for r in results], expected[ranked], rtol=1e-12, atol=0)
        np.testing.assert_allclose(cosine_similarity(matrix, fitted.transform([query["text"]])).ravel(), expected,
                                   rtol=1e-12, atol=1e-15)
        several += len(results) > 1
    assert several >= 2, "the queries must rank more than one document for the comparison to mean anything"


def test_the_hybrid_fuses_the_two_lanes_at_the_candidate_depth(example: ModuleType, corpus: Corpus,
                                                                tiny_corpus: CorpusFixture, tmp_path: Path) -> None:
    """Each hybrid result's lane evidence is its rank and score in that lane's own ranking at the candidate depth,
    its score their reciprocal rank fusion; every document either lane ranks is a candidate."""
    system = example.TfidfHybrid()
    system.build(corpus, tmp_path)
    depth, k = example.FUSION["candidate_depth"], example.FUSION["k"]
    both = 0
    for query, vector in zip(tiny_corpus.data["queries"], tiny_corpus.query_vectors, strict=True):
        lanes = {lane: {r.doc_id: (rank, r.score) for rank, r in enumerate(system.search(mode, query["text"], vector,
                                                                                         depth), start=1)}
                 for lane, mode in (("lexical", "fts_only"), ("dense", "vector_only"))}
        fused = {doc_id: sum(1.0 / (k + lanes[lane][doc_id][0]) for lane in lanes if doc_id in lanes[lane])
                 for doc_id in lanes["lexical"].keys() | lanes["dense"].keys()}
        expected = sorted(fused, key=lambda doc_id: (-fused[doc_id], doc_id))[:10]
        results = system.search("hybrid", query["text"], vector, 10)
        assert [r.doc_id for r in results] == expected, query["query_id"]
        for result in results:
            assert dict(result.lanes) == {lane: ranked[result.doc_id] for lane, ranked in lanes.items()
                                          if result.doc_id in ranked}
            assert result.score == pytest.approx(fused[result.doc_id], rel=1e-15)
            both += len(result.lanes) == 2
    assert both, "some document must be ranked by both lanes for the fusion to be tested"


def test_build_is_idempotent_deterministic_and_refuses_another_corpus_or_configuration(
        example: ModuleType, corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def files() -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in sorted(tmp_path.iterdir())}

    system = example.TfidfHybrid()
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path} holds no complete build (no manifest.json)")):
        system.open(corpus, tmp_path)
    assert system.build(corpus, tmp_path) is True
    built = files()
    assert sorted(built) == sorted(path.name for path in system.parts().values())
    assert example.TfidfHybrid().build(corpus, tmp_path) is False
    assert files() == built
    (tmp_path / "manifest.json").unlink()  # an interrupted build: its files are written again, byte for byte
    (tmp_path / "idf.npy").write_bytes(b"half written")
    assert example.TfidfHybrid().build(corpus, tmp_path) is True
    assert files() == built

    other = dataclasses.replace(corpus, texts=("Edited text.", *corpus.texts[1:]), fixture_sha256="sha256:" + "0" * 64)
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path} was built from another corpus or configuration: "
                                                   f"corpus.fixture_sha256 (built '{corpus.fixture_sha256}', now "
                                                   f"'sha256:{'0' * 64}'); build in a new directory")):
        example.TfidfHybrid().build(other, tmp_path)
    monkeypatch.setitem(example.VECTORIZER, "sublinear_tf", False)
    with pytest.raises(ValueError, match=re.escape("configuration.lexical.vectorizer.sublinear_tf (built True, now "
                                                   "False)")):
        example.TfidfHybrid().open(corpus, tmp_path)
    assert files() == built


def test_the_systems_page_names_the_example_and_states_its_fusion_declaration(example: ModuleType) -> None:
    page = (ROOT / "docs" / "systems.md").read_text(encoding="utf-8")
    assert "`examples/tfidf_hybrid.py` (`--system tfidf_hybrid:SYSTEM`" in page
    assert f"`{json.dumps({'fusion': example.FUSION})}`" in page
    assert example.TfidfHybrid.declarations == {"dense": "exact_inner_product", "fusion": example.FUSION}

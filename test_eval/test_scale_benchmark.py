"""The scale benchmark's own code at a tiny size (two sizes, both systems, real processes, the real store builder,
Milvus Lite and the validator's replay): every figure is there and positive, every exponent computed, the
validator agrees with every replayed row, and the page and plot are written. Nothing here is timed."""

import json
from pathlib import Path

import pytest

from benchmarks.scale.report import BEGIN, END, MEASURES, exponent, series, value, write_report
from benchmarks.scale.run import Plan, run
from benchmarks.scale.synthetic import DIMENSIONS, generate

MILVUS = pytest.mark.extra("milvus")  # the tests of the measured document: it holds both systems

SIZES = (300, 600)


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    return run(Plan(SIZES, queries=4), tmp_path_factory.mktemp("scale"))


@MILVUS
def test_every_phase_measured_positive(document: dict[str, object]) -> None:
    results = document["results"]
    assert isinstance(results, list)
    assert sorted((e["size"], e["system"]) for e in results) == [(s, y) for s in SIZES for y in ("builtin", "milvus")]
    for entry in results:
        wanted = [m for m in MEASURES if m.path[0] != "replay" or entry["system"] == "builtin"]
        wanted = [m for m in wanted if m.path[0] != "corpus" or entry["system"] == "builtin"]
        missing = [m.label for m in wanted if value(entry, m) is None]
        assert not missing, (entry["system"], entry["size"], missing, entry)
        assert all(value(entry, m) > 0 for m in wanted), entry  # type: ignore[operator]
        if entry["system"] == "builtin":
            assert entry["replay"]["replay_verdict"] == {"fts_only": "pass", "vector_only": "pass", "hybrid": "pass"}


@MILVUS
def test_every_exponent_computed(document: dict[str, object]) -> None:
    lines = series(document)
    without_milvus = [m for m in MEASURES if m.path[0] in ("replay", "corpus")]  # the replay and baseline: built-in
    assert len(lines) == 2 * len(MEASURES) - len(without_milvus)
    assert all(isinstance(line["exponent"], float) for line in lines), [ln for ln in lines if ln["exponent"] is None]


@MILVUS
def test_report_page_plot_and_figures(document: dict[str, object], tmp_path: Path) -> None:
    page = tmp_path / "scale.md"
    page.write_text(f"# Cost\n\nbefore\n\n{BEGIN}\nold figures\n{END}\n\nafter\n", encoding="utf-8")
    write_report(document, tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Cost\n\nbefore\n\n") and text.endswith("\n\nafter\n") and "old figures" not in text
    assert "| builtin | validator replay: hybrid, all queries (s) |" in text and "![cost curves](scale.svg)" in text
    assert (tmp_path / "scale.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert json.loads((tmp_path / "scale.json").read_text(encoding="utf-8")) == document


def test_exponent_is_the_log_log_slope() -> None:
    assert exponent([(10, 100.0), (100, 10_000.0), (1000, 1e6)]) == pytest.approx(2.0)
    assert exponent([(10, 5.0), (1000, 5.0)]) == pytest.approx(0.0)
    assert exponent([(10, 5.0)]) is None
    assert exponent([(10, 5.0), (100, 0.0)]) is None


def test_synthetic_corpus_is_seeded_and_shaped() -> None:
    first, again, other = generate(200, queries=3), generate(200, queries=3), generate(200, seed=1, queries=3)
    assert list(first.texts) == list(again.texts) and (first.vectors == again.vectors).all()
    assert list(first.texts) != list(other.texts)
    assert first.texts[-1] == first.texts[199] and first.texts[1:3] == [first.texts[1], first.texts[2]]
    with pytest.raises(IndexError):
        first.texts[200]
    document = first.fixture(Path("synthetic.json")).data["documents"][5]
    assert document == {"doc_id": "5", "title": first.titles[5], "text": first.texts[5]}
    assert first.vectors.shape == (200, DIMENSIONS) and first.query_vectors.shape == (3, DIMENSIONS)
    assert abs(float((first.vectors.astype("f8") ** 2).sum(axis=1).mean()) - 1.0) < 1e-6
    assert 100 < sum(len(t.split()) for t in first.texts) / 200 < 320


def test_a_phase_over_its_memory_limit_is_stopped_and_says_so(tmp_path: Path) -> None:
    from benchmarks.scale.measure import Limits, run_phase
    from benchmarks.scale.run import ROOT

    figures = run_phase("corpus", "builtin", 300, 0, 4, tmp_path, Limits(20 * 2 ** 20, 600.0), ROOT)
    assert figures["failed"].startswith("stopped at ") and "limits 0.0 GiB" in figures["failed"], figures
    assert "generate_seconds" not in figures  # nothing the stopped process did not report is invented

"""Two evaluations of the tiny corpus that differ in their embedding alone, for comparisons between models: `packaged`,
the built-in system on the session's fixture (the packaged all-MiniLM-L6-v2, contract profile), and `mine`, the same
system on a fixture of the same archive and contract embedded by another model (an Ollama model, served by the fake
Ollama server on loopback, which the validator verifies when named as the verifier's server). packaged is calibrated
and frozen first; then mine, declaring "vector_only > vector_only" against packaged's freeze (my model's vector_only
above the packaged model's); then both run held-out, under a held-out record of their own.

And fixtures of other data, for the refusals: the tiny archive with one judgement or one document changed, each
embedded by the packaged model and run on calibration only (an unpinned fixture is never frozen)."""

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fixtures.archives import tiny_archive, tiny_contract, tiny_members
from fixtures.clean_checkout import mark_clean_checkout
from fixtures.cut_model import cut_model
from fixtures.ollama_server import FakeOllama
from harness.corpus.contract import Contract
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.embedders.ollama import OllamaEmbedder
from harness.evaluation.gates import freeze
from harness.evaluation.gates.hypothesis_terms import FamilyRequest, HypothesisRequest
from harness.evaluation.receipts.locations import place_model
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.build import build_fixture
from harness.fixture.corpus_fixture import CorpusFixture, load_fixture
from harness.modes import SEARCHED as MODES
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.builtin.store.store import build_store
from harness.systems.builtin.system import BuiltinSystem

from .systems_compared import own_record

ARGV = ("pytest", "test_validate")
QRELS = "tiny/qrels/test.tsv"
CORPUS = "tiny/corpus.jsonl"


def mine_family(baseline: Path) -> FamilyRequest:
    """My model's vector_only above the packaged model's, one-sided, declared before either held-out run."""
    return FamilyRequest.of(HypothesisRequest("vector_only > vector_only", baseline, sided="one"))


@dataclass(frozen=True)
class ModelsRuns:
    """The output directories and fixtures of both evaluations, and the server that embedded mine's."""

    packaged: Path
    mine: Path
    packaged_fixture: Path
    mine_fixture: Path
    server: FakeOllama


def _store(out: Path) -> Path:
    return out.parent / f"{out.name}-store"


def calibrated_and_frozen(out: Path, fixture: CorpusFixture, contract: Contract,
                          hypotheses: FamilyRequest | None = None) -> str:
    """The built-in system calibrated on `fixture` into `out` and frozen; the freeze record's creation time."""
    config = SearchConfig()
    store, _ = build_store(_store(out), fixture, contract.namespace, config.lexical)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                         config=config, argv=ARGV), contract)
    frozen = freeze.freeze_configuration(fixture=fixture, system=BuiltinSystem(store, config), contract=contract,
                                         modes=MODES, output_dir=out, argv=list(ARGV), allow_dirty=True,
                                         replace=False, hypotheses=hypotheses)
    return str(frozen.record["created_at"])


def _held_out(out: Path, fixture: CorpusFixture, contract: Contract) -> None:
    run_split(Evaluation(corpus=fixture.path, store_dir=_store(out), output_dir=out, split="heldout", argv=ARGV),
              contract)
    mark_clean_checkout(out)


def ollama_fixture(root: Path, server: FakeOllama) -> CorpusFixture:
    """The tiny corpus from the same archive and contract, embedded by the fake server's model."""
    built = build_fixture(tiny_contract(), out=root / "mine-fixture" / "tiny.json", work_dir=root / "mine-work",
                          embedder=OllamaEmbedder(host=server.url), archive=tiny_archive(root / "tiny.zip"),
                          progress=False)
    return load_fixture(built.fixture)


def own_model_fixture(root: Path, server: FakeOllama) -> CorpusFixture:
    """The tiny corpus from the same archive and contract, embedded by a sentence-transformers model of one's own
    (the packaged model cut to 3 layers), placed beside the fixture as `build` places it."""
    embedder = LocalEmbedder(str(cut_model(root / "models" / "minilm-3")))
    built = build_fixture(tiny_contract(), out=root / "mine-fixture" / "tiny.json", work_dir=root / "mine-work",
                          embedder=embedder, archive=tiny_archive(root / "tiny.zip"), progress=False)
    place_model(built.fixture.parent, embedder)
    return load_fixture(built.fixture)


@contextmanager
def models_runs(packaged_fixture: Path, root: Path,
                mine_fixture: Callable[[Path, FakeOllama], CorpusFixture] = ollama_fixture) -> Iterator[ModelsRuns]:
    """Both evaluations, the server up for as long as the caller uses them (the validator re-embeds mine's texts
    through it, when its model is the server's)."""
    contract = tiny_contract()
    packaged, mine = root / "packaged", root / "mine"
    with FakeOllama() as server, own_record(root / "heldout-looks.sqlite3"):
        fixtures = {packaged: load_fixture(packaged_fixture), mine: mine_fixture(root, server)}
        calibrated_and_frozen(packaged, fixtures[packaged], contract)
        declared = calibrated_and_frozen(mine, fixtures[mine], contract, mine_family(packaged))
        while time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()) <= declared:
            time.sleep(0.05)  # receipts state whole seconds: a run "after" the declaration starts in a later second
        for out, fixture in fixtures.items():
            _held_out(out, fixture, contract)
        yield ModelsRuns(packaged, mine, packaged_fixture, fixtures[mine].path, server)


def other_data(root: Path, embedder: LocalEmbedder, changed: str) -> Path:
    """An output directory of calibration runs on a fixture of the tiny archive with one judgement (`QRELS`) or one
    document's text (`CORPUS`) changed: other data under the same contract, embedded by the packaged model."""
    members = tiny_members()
    original = members[changed].decode("utf-8")
    if changed == QRELS:
        edited = original.replace("q1\td01\t1", "q1\td01\t2", 1)
    else:
        edited = original.replace("Low-dose aspirin", "High-dose aspirin", 1)
    assert edited != original, changed
    contract = tiny_contract()
    built = build_fixture(contract, out=root / "other-fixture" / "tiny.json", work_dir=root / "other-work",
                          embedder=embedder, archive=tiny_archive(root / "other.zip", {changed: edited.encode()}),
                          allow_unpinned=True, progress=False)
    fixture, out = load_fixture(built.fixture), root / "other"
    store, _ = build_store(_store(out), fixture, contract.namespace, SearchConfig().lexical)
    run_split(Evaluation(corpus=fixture.path, store_dir=store.directory, output_dir=out, split="calibration",
                         argv=ARGV), contract)
    mark_clean_checkout(out)
    return out

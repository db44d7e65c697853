"""The types of the suite's fixtures, to annotate tests of your own: `from harness.suite.types import CorpusFixture`.

`scifact_corpus` is a `CorpusFixture` (its `documents`, `queries` and `corpus` are `Document`, `Query` and `Corpus`
records), `scifact_system` a `SystemUnderTest` (its `search` returns a `SearchOutcome` of `Hit`s). Imported on demand
only, so loading the plugin stays light."""

from harness.fixture.corpus_fixture import CorpusFixture
from harness.fixture.records import Corpus, Document, Query
from harness.systems.protocol import Hit, SearchOutcome, SystemUnderTest

__all__ = ["Corpus", "CorpusFixture", "Document", "Hit", "Query", "SearchOutcome", "SystemUnderTest"]

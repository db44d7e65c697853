"""Systems from outside the harness: the plugin interface (`Corpus`, `Result`) and its adapter to the seam."""

from harness.systems.plugin.api import DENSE_EXACT, Corpus, Result, RetrievalSystem

__all__ = ["DENSE_EXACT", "Corpus", "Result", "RetrievalSystem"]

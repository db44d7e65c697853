"""Systems from outside the harness: the plugin interface (`Corpus`, `Result`, `fuse`) and its adapter to the seam."""

from harness.systems.plugin.api import DENSE_EXACT, Corpus, LaneStatistics, Ranking, Result, RetrievalSystem
from harness.systems.plugin.fusion import fuse

__all__ = ["DENSE_EXACT", "Corpus", "LaneStatistics", "Ranking", "Result", "RetrievalSystem", "fuse"]

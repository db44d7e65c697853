"""The complete effective search configuration. Every field is real; the frozen-baseline switches
must hold their baseline values, since this harness implements none of those capabilities."""

from dataclasses import asdict, dataclass, field
from typing import Any

from harness.errors import HarnessError
from harness.hashing import sha256_canonical

TIE_BREAK = "score descending, then doc_id ascending by Unicode code point"

# capability -> (config field, baseline value, why it is unavailable)
UNAVAILABLE: dict[str, tuple[str | None, Any, str]] = {
    "sparse": ("sparse_weight", 0.0, "no native sparse (SPLADE-style) lane exists in this harness"),
    "dense_derived_sparse": ("dense_derived_sparse", False, "no sparse lane is derived from dense vectors"),
    "late_interaction": ("late_interaction_weight", 0.0, "vectors are one per text; no token-level late interaction"),
    "matryoshka": ("candidate_dims", None, "vectors are searched at full dimension only; no Matryoshka prefixes"),
    "recency": ("recency", False, "SciFact documents carry no timestamps; no recency signal"),
    "derived_vector_backend": ("derived_vector_backend", False, "dense search is exact over stored vectors only"),
    "graph": (None, None, "SciFact ingestion creates no graph edges; no graph or factor-graph retrieval"),
}


class ConfigError(HarnessError):
    """A search configuration asks for something the harness cannot do."""


@dataclass(frozen=True)
class LexicalConfig:
    method: str = "lucene"
    k1: float = 1.5
    b: float = 0.75
    lowercase: bool = True
    token_pattern: str = r"(?u)\b\w\w+\b"
    stopwords: str = "bm25s english list"
    stemmer: str = "snowball english (PyStemmer)"
    text: str = "title.strip() + ' ' + text.strip(), the whole document, not the 700-code-point semantic text"


@dataclass(frozen=True)
class SearchConfig:
    top_k: int = 10
    lexical: LexicalConfig = field(default_factory=LexicalConfig)
    dense_backend: str = "numpy-exact-inner-product"
    dense_exactness: str = "PreferExact"
    dense_dtype: str = "float32"
    rrf_k: int = 60
    hybrid_candidate_depth: int = 100
    sparse_weight: float = 0.0
    dense_derived_sparse: bool = False
    late_interaction_weight: float = 0.0
    candidate_dims: int | None = None
    recency: bool = False
    derived_vector_backend: bool = False
    tie_break: str = TIE_BREAK
    query_vectors: str = "from the corpus fixture only; unknown query text is refused, never embedded"

    def __post_init__(self) -> None:
        for capability, (name, baseline, reason) in UNAVAILABLE.items():
            if name is not None and getattr(self, name) != baseline:
                raise ConfigError(f"{name}={getattr(self, name)!r} asks for {capability}, which is unavailable: "
                                  f"{reason}. The frozen baseline is {name}={baseline!r}.")
        if self.top_k < 1 or self.rrf_k < 1 or self.hybrid_candidate_depth < self.top_k:
            raise ConfigError(f"top_k ({self.top_k}) and rrf_k ({self.rrf_k}) must be >= 1 and "
                              f"hybrid_candidate_depth ({self.hybrid_candidate_depth}) >= top_k")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sha256(self) -> str:
        return sha256_canonical(self.to_dict())


def unavailable_capabilities() -> dict[str, dict[str, Any]]:
    return {
        capability: {"available": False, "config_field": name, "baseline_value": baseline, "reason": reason}
        for capability, (name, baseline, reason) in UNAVAILABLE.items()
    }

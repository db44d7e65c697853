"""What the receipt declares about the system under test: built-in or its own, and the parameters the replay uses."""

from typing import Any

from .context import Context

BUILTIN = "builtin"
DENSE_EXACT = "exact_inner_product"


def is_builtin(ctx: Context) -> bool:
    return bool(ctx.receipt["system"]["name"] == BUILTIN)


def replay_parameters(ctx: Context) -> dict[str, Any]:
    """top_k, and for fusion the candidate depth and RRF k: the built-in system's configuration, or what a system
    of its own declares."""
    retrieval = ctx.receipt["retrieval"]
    if is_builtin(ctx):
        config = retrieval["config"]
        return {"top_k": retrieval["top_k"], "depth": config["hybrid_candidate_depth"], "rrf_k": config["rrf_k"]}
    fusion = ctx.receipt["system"]["declarations"].get("fusion") or {}
    return {"top_k": retrieval["top_k"], "depth": fusion.get("candidate_depth"), "rrf_k": fusion.get("k"),
            "score_dtype": fusion.get("score_dtype", "float64")}

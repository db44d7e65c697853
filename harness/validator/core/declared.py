"""What the receipt declares about the system under test: built-in or its own, and the parameters the replay uses."""

from typing import Any

from .context import Context

BUILTIN = "builtin"
DENSE_EXACT = "exact_inner_product"


def is_builtin(ctx: Context) -> bool:
    return bool(ctx.receipt["system"]["name"] == BUILTIN)


def replay_parameters(ctx: Context) -> dict[str, Any]:
    """top_k, and for fusion the fusion and its candidate depth: the built-in system's configuration (reciprocal rank
    fusion), or the fusion a system of its own declares (rrf or convex; None when it declares none)."""
    retrieval = ctx.receipt["retrieval"]
    if is_builtin(ctx):
        config = retrieval["config"]
        fusion: dict[str, Any] | None = {"method": "rrf", "k": config["rrf_k"],
                                          "candidate_depth": config["hybrid_candidate_depth"]}
    else:
        fusion = ctx.receipt["system"]["declarations"].get("fusion")
    return {"top_k": retrieval["top_k"], "fusion": fusion, "depth": (fusion or {}).get("candidate_depth")}

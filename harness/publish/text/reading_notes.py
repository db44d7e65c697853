"""What a reader needs to read the numbers right, for CLAIMS.md and the report: what the latency covers (from the
system's declarations), which queries the all-query split shares with calibration, and which runs returned fewer
than `top_k` results.
"""

from typing import Any

from harness.evaluation.receipts.receipt import LATENCY_TIMER

WORKER_SCOPE = "inside the system's worker, around its search call; what the system does inside is its own: "


def fusion_words(fusion: dict[str, Any]) -> str:
    """A declared fusion in words: its method and parameters, as the system declares them."""
    if fusion["method"] == "rrf":
        return f"fusion by RRF (k {fusion['k']}, candidate depth {fusion['candidate_depth']})"
    return (f"fusion by a convex combination of {fusion['normalisation']} normalised lane scores (dense weight "
            f"{fusion['weight']}, lexical {1 - fusion['weight']:.6g}, candidate depth {fusion['candidate_depth']})")


def declared(declarations: dict[str, Any]) -> str:
    """A system's declarations in words."""
    said = []
    if "dense" in declarations:  # the schemas allow one dense declaration: exact_inner_product
        said.append("a dense lane by exact inner product over the fixture's vectors")
    if "lexical" in declarations:
        said.append(f"a lexical lane: {declarations['lexical']}")
    if "fusion" in declarations:
        said.append(fusion_words(declarations["fusion"]))
    if "identical_vectors_share_a_score" in declarations:
        said.append("identical vectors share a score" if declarations["identical_vectors_share_a_score"]
                    else "identical vectors need not share a score")
    return "it declares " + "; ".join(said) if said else "it declares nothing about how it ranks"


def latency_scope(receipt: dict[str, Any]) -> str:
    """A run the harness timed in its own process (the built-in system's, the only one that runs there) has the
    scope its receipt states; any other system is timed in its worker, and only its declarations say what happens
    inside its search."""
    if receipt["retrieval"]["latency_timer"] == LATENCY_TIMER:
        return str(receipt["retrieval"]["latency_scope"])
    return WORKER_SCOPE + declared(receipt["system"]["declarations"])


def all_queries_note(calibration_count: int) -> str:
    return (f"The all-query split holds every test query, the {calibration_count} calibration queries among them, "
            "which the configuration was chosen on: its numbers and comparisons are not independent of calibration; "
            "the held-out split's are.")


def short_list(aggregate: dict[str, Any]) -> str | None:
    """How many queries of one run returned fewer than `top_k` results (from the aggregate's result-count
    distribution, failed queries with none among them); None when every query returned `top_k`."""
    top_k = aggregate["receipt"]["retrieval"]["top_k"]
    short = sum(count for results, count in aggregate["metrics"]["result_count_distribution"].items()
                if int(results) < top_k)
    if not short:
        return None
    failed = aggregate["metrics"]["failures"]
    return (f"{aggregate['mode']} {aggregate['split']}: {short} of {aggregate['row_count']} queries returned fewer "
            f"than {top_k} results" + (f" ({failed} of them failed, with none)" if failed else ""))


def short_lists(aggregates: list[dict[str, Any]]) -> list[str]:
    """One sentence per run that returned short lists; one sentence for all when none did."""
    lines = [line for aggregate in aggregates if (line := short_list(aggregate)) is not None]
    if lines:
        return lines
    sizes = sorted({aggregate["receipt"]["retrieval"]["top_k"] for aggregate in aggregates})
    return [f"Every query of every run here returned {' or '.join(map(str, sizes))} results (top_k)."]


def split_notes(split: str, aggregates: list[dict[str, Any]]) -> list[str]:
    """The report's notes under one split's tables: its short lists, and for the all-query split its overlap with
    calibration."""
    notes = short_lists(aggregates)
    if split == "all":
        notes.append(all_queries_note(aggregates[0]["receipt"]["split"]["calibration_count"]))
    return notes

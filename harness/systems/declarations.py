"""What a system may declare about itself that the validator then replays on its own, and each declaration's form.

A declaration the harness cannot read is named by its field and what that field takes (`declarations_problem`),
before any query runs, so a mistake reads as itself and not as a broken schema.
"""

from collections.abc import Mapping

# The dense lane scores every document by the float32 inner product of the fixture's unit vectors: the validator
# replays that lane from the fixture.
DENSE_EXACT = "exact_inner_product"
NORMALISATIONS = ("min-max", "z-score")
# each declarable fusion: its required fields (after `method`), then its optional ones, with what each takes
FUSIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "rrf": (("k", "candidate_depth"), ("score_dtype",)),
    "convex": (("weight", "normalisation", "candidate_depth"), ()),
}
TAKES = {"k": "an integer of at least 1 (the RRF constant)",
         "candidate_depth": "an integer of at least 1 (how many of each lane's best documents are fused)",
         "weight": "a number from 0 to 1 (the dense lane's weight; the lexical lane's is 1 - weight)",
         "normalisation": "'min-max' or 'z-score'", "score_dtype": "'float64' or 'float32'"}
RRF_FORM = "{'method': 'rrf', 'k': 60, 'candidate_depth': 100}"
CONVEX_FORM = "{'method': 'convex', 'weight': 0.5, 'normalisation': 'min-max', 'candidate_depth': 100}"
FUSION_FORMS = f"declarations = {{'fusion': {RRF_FORM}}} or {{'fusion': {CONVEX_FORM}}}"
KEYS = ("dense", "lexical", "identical_vectors_share_a_score", "depth_ranking", "fusion")


def _fields(method: str) -> str:
    required, optional = FUSIONS[method]
    return ", ".join(required) + (f" (and optionally {', '.join(optional)})" if optional else "")


def _takes(method: str) -> str:
    return f"{method} takes {_fields(method)}"


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _field_problem(name: str, value: object) -> str | None:
    good = {"k": _integer(value), "candidate_depth": _integer(value),
            "weight": isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1,
            "normalisation": value in NORMALISATIONS, "score_dtype": value in ("float64", "float32")}[name]
    return None if good else f"declarations.fusion.{name}: {value!r} is not {TAKES[name]}"


def fusion_problem(fusion: object) -> str | None:
    """What is wrong with a fusion declaration, naming the field and what it takes; None when it is one."""
    if not isinstance(fusion, Mapping):
        return f"declarations.fusion: {fusion!r} is not a fusion; declare {FUSION_FORMS}"
    method = fusion.get("method")
    if not isinstance(method, str) or method not in FUSIONS:
        return (f"declarations.fusion.method: {method!r} is not a fusion the harness knows; 'rrf' takes "
                f"{_fields('rrf')}, 'convex' takes {_fields('convex')}")
    required, optional = FUSIONS[method]
    unexpected = [str(key) for key in fusion if key not in ("method", *required, *optional)]
    if unexpected:
        return f"declarations.fusion: {unexpected[0]!r} was unexpected; {_takes(method)}"
    missing = [key for key in required if key not in fusion]
    if missing:
        return f"declarations.fusion: {method} needs {missing[0]!r}, {TAKES[missing[0]]}; {_takes(method)}"
    return next((problem for key, value in fusion.items() if key != "method"
                 if (problem := _field_problem(str(key), value)) is not None), None)


def declarations_problem(declarations: object) -> str | None:
    """What is wrong with a system's declarations, naming the field and what it takes; None when nothing is."""
    if not isinstance(declarations, Mapping):
        return f"declarations: {declarations!r} is not a dict of declarations; a system declares {', '.join(KEYS)}"
    unexpected = [str(key) for key in declarations if key not in KEYS]
    if unexpected:
        return f"declarations: {unexpected[0]!r} was unexpected; a system declares {', '.join(KEYS)}"
    if "dense" in declarations and declarations["dense"] != DENSE_EXACT:
        return (f"declarations.dense: {declarations['dense']!r} is not a dense declaration the harness knows; dense "
                f"takes {DENSE_EXACT!r} (or leave it out)")
    if "lexical" in declarations and not isinstance(declarations["lexical"], str):
        return f"declarations.lexical: {declarations['lexical']!r} is not a string naming the lexical lane"
    for key in ("identical_vectors_share_a_score", "depth_ranking"):
        if key in declarations and not isinstance(declarations[key], bool):
            return f"declarations.{key}: {declarations[key]!r} is not of type 'boolean' (true or false)"
    return fusion_problem(declarations["fusion"]) if "fusion" in declarations else None

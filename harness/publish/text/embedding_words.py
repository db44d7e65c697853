"""Each arm's embedding model in words, beside the figures of a comparison between systems whose runs read several
fixtures (of the same documents, queries and judgements, other embeddings or text profiles): there "vector_only >
vector_only" says nothing until each side names its model. A comparison of one fixture is worded as before."""

from typing import Any


def several_fixtures(document: dict[str, Any]) -> bool:
    """Whether the comparison's runs read more than one fixture."""
    return len({run["fixture"]["sha256"] for run in document["runs"]}) > 1


def _run(document: dict[str, Any], label: str) -> dict[str, Any]:
    name = label.split("/")[0]
    run: dict[str, Any] = next(r for r in document["runs"] if r["name"] == name)
    return run


def _profiles_differ(document: dict[str, Any]) -> bool:
    return len({run["fixture"]["profile"] for run in document["runs"]}) > 1


def run_embedding(document: dict[str, Any], run: dict[str, Any]) -> str:
    """What `runs_line` adds for a run: its embedding model (and text profile, when the runs' differ); nothing for a
    comparison of one fixture."""
    if not several_fixtures(document):
        return ""
    profile = f", text profile {run['fixture']['profile']}" if _profiles_differ(document) else ""
    return f", embedded by {run['embedding']['model']}{profile}"


def model_of(document: dict[str, Any], label: str) -> str:
    """The embedding model of an arm's run (and its text profile, when the runs' differ)."""
    run = _run(document, label)
    profile = f", {run['fixture']['profile']}" if _profiles_differ(document) else ""
    return f"{run['embedding']['model']}{profile}"


def with_model(document: dict[str, Any], label: str) -> str:
    """An arm's label, with its model in brackets when the runs read several fixtures."""
    return f"{label} [{model_of(document, label)}]" if several_fixtures(document) else label


def pair_models(document: dict[str, Any], comparison: dict[str, Any]) -> str | None:
    """The models of a pair's two arms, a's then b's; None for a comparison of one fixture."""
    if not several_fixtures(document):
        return None
    return f"{model_of(document, comparison['a'])} / {model_of(document, comparison['b'])}"

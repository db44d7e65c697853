"""The "Systems compared" section of CLAIMS.md, from the bundled (and validated) comparisons between systems."""

from collections.abc import Sequence
from functools import partial
from typing import Any

from harness.publish.claims.claims_comparisons import compared_dataset, difference_table
from harness.publish.text.embedding_words import pair_models
from harness.publish.text.markdown_text import inert
from harness.publish.text.report_text import SPLIT_LABELS, SPLIT_ORDER, pair_label
from harness.publish.text.systems_text import (
    SYSTEMS_DOES_NOT,
    fixtures_line,
    hypothesis_lines,
    pair_verdict,
    runs_line,
    status_words,
    superiority_claims,
)


def _labelled(document: dict[str, Any], comparison: dict[str, Any]) -> str:
    """A pair, with its arms' embedding models (a / b) when the runs read several fixtures."""
    models = pair_models(document, comparison)
    return pair_label(comparison) if models is None else f"{pair_label(comparison)} ({models})"


def systems_section(documents: Sequence[dict[str, Any]]) -> list[str]:
    if not documents:
        return []
    lines = ["## Systems compared", "",
             "Evaluations of different systems or configurations, paired over the same queries of one split of "
             "this fixture (or of fixtures that hold the same documents, queries and judgements and differ in "
             "their embedding, each arm's model then named beside its figures), from "
             f"`artifacts/{compared_dataset(documents)}-systems-<split>.json` with every run it read in "
             "`artifacts/runs/` (each passed the validator, which recomputed every number and the reading of every "
             "hypothesis: `validation/comparisons/`). A pair is confirmatory only when a hypothesis declared at a "
             "freeze, before either held-out run, names it, and both arms' receipts date no held-out look at the "
             "dataset at or before the declaration; every other pair is exploratory. The hypotheses one freeze "
             "declares are one family: each is decided by its declared test's p-value (one- or two-sided, as "
             "declared), Holm-adjusted over the family, at the family's alpha; the bootstrap intervals describe "
             "and decide nothing. That the held-out split was unseen rests on the publisher's held-out record, "
             "which the receipts attest and a reader cannot recompute.", ""]
    claims = []
    for document in sorted(documents, key=lambda d: SPLIT_ORDER.index(d["split"])):
        split = document["split"]
        lines += [f"### {SPLIT_LABELS[split]} ({inert(document['query_count'])} queries)", "",
                  f"Runs: {inert(runs_line(document))}.", "", f"Scope: {inert(document['scope'])}.", ""]
        fixtures = fixtures_line(document)
        lines += [] if fixtures is None else [f"Fixtures: {inert(fixtures)}.", ""]
        lines += [f"- [{status_words(c['status'])}] {inert(pair_verdict(document, c))}"
                  for c in document["comparisons"]]
        lines += ["", *difference_table(document, partial(_labelled, document)), ""]
        if document["hypotheses"]:
            lines += ["Hypotheses:", ""]
            lines += [f"- {inert(line)}" for line in hypothesis_lines(document)]
            lines.append("")
        claims += superiority_claims(document)
    if claims:
        lines += ["The claim of superiority these runs support:", ""]
        lines += [f"- {inert(claim)}" for claim in claims]
    else:
        lines += ["No claim of superiority: no confirmatory hypothesis here is supported, so every difference above "
                  "is exploratory."]
    lines += ["", "It does not show:", ""]
    lines += [f"- {inert(item)}" for item in SYSTEMS_DOES_NOT]
    return [*lines, ""]

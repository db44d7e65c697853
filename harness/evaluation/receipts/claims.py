"""The claim boundary every receipt carries: what a validated run supports and what it does not."""

SUPPORTS_LEAD = "Retrieval quality (the metrics in the receipts) and local latency, for exactly:"
SUPPORTS = (
    "the executable and source revision recorded here",
    "the SciFact corpus with the recorded source and payload hashes",
    "the embedding model identity and dimensions recorded here",
    "the persisted store and BEIR-id mapping with the recorded digests",
    "the retrieval mode and the complete effective configuration recorded here",
    "the split definition and the selected query ids (by their digest)",
    "the raw per-query rows (by their digest) and this aggregate",
)
DOES_NOT_ESTABLISH = (
    "superiority over another system: only a validated comparison between systems, with a hypothesis declared at the "
    "freeze, supports that",
    "general-domain retrieval quality beyond SciFact",
    "embedding-model quality in isolation",
    "graph or factor-graph retrieval quality",
    "native sparse (SPLADE-style) retrieval",
    "token-level late interaction",
    "Matryoshka retrieval quality",
    "production latency, or latency on another host, build, store or workload",
)
STATEMENT = (
    "Publish the validated artifact bundle, not a bare metric table, and repeat what it does not prove. "
    "A receipt whose profile is not the contract (mteb-parity) supports only the claim that the harness "
    "reproduces a published reference number."
)


def claim_boundary() -> dict[str, object]:
    return {"supports_lead": SUPPORTS_LEAD, "supports": list(SUPPORTS), "does_not_establish": list(DOES_NOT_ESTABLISH),
            "statement": STATEMENT}

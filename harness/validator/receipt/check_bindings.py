"""What the receipt binds the run to, resolved against the files: corpus, split, store, configuration."""


from ..core import split_rule
from ..core.by_content import of_content
from ..core.context import Context
from ..core.declared import is_builtin
from ..core.digests import freeze_digest, sha256_canonical, sha256_file, sha256_text
from ..core.modes import has_lane
from ..core.reading import is_file
from ..core.report import Report
from ..core.schemas import violation
from ..dataset.content import Content
from ..rows.check_rows import exact_backends

FROZEN_BASELINE = {"sparse_weight": 0.0, "dense_derived_sparse": False, "late_interaction_weight": 0.0,
                   "candidate_dims": None, "recency": False, "derived_vector_backend": False}


def check_corpus(ctx: Context, report: Report) -> bool:
    corpus = ctx.receipt["corpus"]
    if ctx.fixture is None or ctx.fixture_path is None:
        why = (f"{ctx.fixture_path} does not exist ({ctx.where('the run', '--fixture FILE', ctx.fixture_given)})"
               if ctx.fixture_path is not None else ctx.places.unplaced("fixture", "--fixture FILE"))
        report.fail("corpus.fixture", f"the corpus fixture the receipt binds ({corpus.get('fixture_file')}) is found: "
                    f"{why}", corpus.get("fixture_sha256"), "missing")
        return False
    fixture = ctx.fixture
    digest = ctx.fixture_sha256
    report.equal("corpus.fixture", corpus["fixture_sha256"], digest or sha256_file(ctx.fixture_path),
                 f"sha256 of {ctx.fixture_path}, {ctx.where('the run', '--fixture FILE', ctx.fixture_given)}")
    problem = of_content(digest, "corpus-fixture schema", lambda: violation(fixture, "corpus-fixture"))
    if not report.expect("corpus.schema", problem is None, "the fixture matches corpus-fixture.schema.json",
                         "no violation", problem):
        return False
    sidecar = ctx.fixture_path.parent / fixture["vectors"]["file"]
    if not report.equal("corpus.vectors", fixture["vectors"]["sha256"], sha256_file(sidecar) if is_file(sidecar)
                        else None, f"sha256 of the vector sidecar {sidecar.name}, beside the fixture") \
            and not is_file(sidecar):
        return False  # no vectors to replay from: the checks that read them are not run
    described = ("source", "counts", "builder_version")
    report.equal("corpus.source_hashes", {k: fixture[k] for k in described}, {k: corpus.get(k) for k in described},
                 "archive and member digests, counts and builder version in the receipt equal the fixture's")
    # documents, queries and qrels hashed by the fixture's stated definitions (corpus.pinned compares the same digests)
    recomputed = of_content(digest, "content digests", lambda: Content.of_fixture(fixture).digests())
    recorded = {key: corpus["payload_hashes"].get(key) for key in recomputed}
    stated = {key: value for key, value in corpus["payload_hashes"].items() if key not in recomputed}
    defined = {key: value for key, value in fixture["payload_hashes"].items() if key not in recomputed}
    report.equal("corpus.payload_hashes", (recomputed, defined), (recorded, stated),
                 "documents, queries and qrels re-hashed from the fixture by their stated definitions, which are the "
                 "fixture's")
    # the data this validation read, for a comparison of runs on several fixtures (validator/comparison/systems_data)
    report.notes["fixture_content"] = {"fixture_sha256": digest, "contract": fixture["contract"], **recomputed}
    return True


def check_split_and_queries(ctx: Context, report: Report) -> None:
    split = ctx.receipt["split"]
    if ctx.fixture is None:
        report.fail("split.membership", "needs the corpus fixture", "fixture", None)
        return
    queries = {q["query_id"]: q for q in ctx.fixture["queries"]}
    contract = ctx.fixture["contract"]
    report.equal("split.contract", (contract, contract["calibration_count"]),
                 (ctx.receipt["corpus"]["contract"], split["calibration_count"]),
                 "the receipt's contract and calibration count are the fixture's")
    expected = split_rule.selection(list(queries), ctx.split, contract["calibration_count"])
    found = [row["query_id"] for row in ctx.rows]
    report.equal("split.membership", expected, found, f"rows are exactly the {ctx.split} ids, in split order")
    report.equal("split.selected_ids", sha256_canonical(expected), split["selected_ids_sha256"],
                 "digest of the selected ids")
    report.equal("split.counts", (len(queries), len(expected)), (split["total_count"], split["selected_count"]),
                 "total and selected counts")
    mismatched = [row["query_id"] for row in ctx.rows if row["query_id"] not in queries
                  or row["query_sha256"] != sha256_text(queries[row["query_id"]]["text"])
                  or row["qrels"] != queries[row["query_id"]]["qrels"]]
    report.expect("rows.query_identity", not mismatched, "query text digest and qrels of every row equal the fixture's",
                  [], mismatched[:5])


def check_receipt_identity(ctx: Context, report: Report) -> None:
    """The receipt agrees with its own aggregate and with the fixture's embedding block."""
    receipt = ctx.receipt
    report.equal("receipt.identity", (ctx.mode, ctx.split), (receipt["retrieval"]["mode"], receipt["split"]["name"]),
                 "the receipt's mode and split are the aggregate's")
    if ctx.fixture is not None:
        fixture = ctx.fixture
        stated = {"embedding": receipt["embedding"], "profile": receipt["profile"]}
        expected = {"embedding": {**fixture["embedding"], "profile": fixture["profile"],
                                  "semantic_text": fixture["semantic_text"]}, "profile": fixture["profile"]}
        differing = sorted(f"{block}.{key}" for block in expected
                           for key in expected[block].keys() | stated[block].keys()
                           if expected[block].get(key) != stated[block].get(key))
        embedding = fixture["embedding"]
        if sha256_canonical(embedding["identity"]) != embedding["identity_sha256"]:
            differing.append("the fixture's embedding identity does not hash to its identity_sha256")
        if (embedding["model"], embedding["backend"]) != (embedding["identity"].get("model"),
                                                          embedding["identity"].get("backend")):
            differing.append("the fixture's embedding model or backend is not its identity's")
        report.expect("receipt.embedding", not differing, "the receipt's embedding block (model, identity, dimensions, "
                      "truncation, semantic-text rules) and text profile are the fixture's, whose identity digest "
                      "recomputes and names its model", [], differing)
    backend = receipt["retrieval"]["backend"] or {}
    if has_lane(ctx.mode, "dense"):
        found = (backend.get("backend") in exact_backends(ctx), backend.get("exact"), backend.get("candidates_scored"))
        # the built-in system states the rest of its backend record in every search receipt too (rows.exact_backend
        # holds each search receipt to exactness itself)
        own = ("backend", "exact", "candidates_scored", "query_vector_sha256", "depth")
        stated = {k: v for k, v in backend.items() if k not in own}
        unlike = [row["query_id"] for row in ctx.rows if is_builtin(ctx) and row["error"] is None and stated != {
            k: v for k, v in row["search_receipt"]["lanes"]["dense"].items() if k not in own}]
        report.expect("receipt.exact_backend", found == (True, True, receipt["store"]["document_count"]) and not unlike,
                      "the run's dense backend is an exact one, scores every document, and states what every search "
                      "receipt states of it", (True, True, receipt["store"]["document_count"]), (found, unlike[:5]))


def check_config(ctx: Context, report: Report) -> None:
    retrieval = ctx.receipt["retrieval"]
    config = retrieval["config"]
    digest = sha256_canonical(config)
    report.equal("config.sha256", (retrieval["config_sha256"], ctx.receipt["system"]["configuration_sha256"]),
                 (digest, digest), "configuration digest, as the retrieval and the system identity record it")
    contract_top_k = ctx.receipt["corpus"]["contract"]["top_k"]
    if not is_builtin(ctx):  # a system of its own: its configuration is its own; the cut is the contract's
        report.equal("config.top_k", contract_top_k, retrieval["top_k"], "top_k of receipt and contract agree")
        return
    off = {k: config.get(k) for k, v in FROZEN_BASELINE.items() if config.get(k) != v}
    report.expect("config.frozen_baseline", not off, "sparse, late interaction, Matryoshka, recency and derived "
                  "vectors at their frozen baseline", FROZEN_BASELINE, off)
    report.equal("config.top_k", (retrieval["top_k"], contract_top_k),
                 (config["top_k"], config["top_k"]), "top_k of receipt, configuration and contract agree")


def check_freeze(ctx: Context, report: Report) -> None:
    if ctx.split == "calibration":
        report.ok("freeze", "calibration runs before the freeze; no freeze record is required")
        return
    if ctx.freeze is None:
        report.fail("freeze", f"a {ctx.split} receipt needs the freeze record it ran under", "freeze record",
                    ctx.receipt.get("freeze"))
        return
    report.ok("freeze", f"a {ctx.split} receipt names the freeze record it ran under, and the record is present")
    freeze = ctx.freeze
    problem = violation(freeze, "freeze")
    if not report.expect("freeze.schema", problem is None, "the freeze record matches freeze.schema.json",
                         "no violation", problem):
        return
    report.equal("freeze.digest", freeze.get("freeze_sha256"), freeze_digest(freeze), "the freeze record's digest")
    report.equal("freeze.recorded", (ctx.receipt.get("freeze") or {}).get("sha256"), freeze.get("freeze_sha256"),
                 "the receipt names this freeze record")
    receipt = ctx.receipt
    pairs = {
        "system": (freeze["system"], receipt["system"]),
        "search_config": (freeze["search_config"], receipt["retrieval"]["config"]),
        "fixture_sha256": (freeze["corpus"]["fixture_sha256"], receipt["corpus"]["fixture_sha256"]),
        "model_identity_sha256": (freeze["embedding"]["identity_sha256"], receipt["embedding"]["identity_sha256"]),
        "dimensions": (freeze["embedding"]["dimensions"], receipt["embedding"]["dimensions"]),
        "store_sha256": (freeze["store"]["store_sha256"], receipt["store"]["store_sha256"]),
        "mapping_sha256": (freeze["store"]["mapping_sha256"], receipt["store"]["mapping_sha256"]),
        "calibration_count": (freeze["split"]["calibration_count"], receipt["split"]["calibration_count"]),
        "split_algorithm": (freeze["split"]["algorithm"], receipt["split"]["algorithm"]),
        "source_commit": (freeze["source"]["git"].get("commit"), receipt["source"]["git"].get("commit")),
        "harness_sha256": (freeze["source"]["harness_sha256"], receipt["source"]["harness"]["sha256"]),
        "harness_distribution": ((freeze["source"].get("distribution") or {}).get("files_sha256"),
                                 (receipt["source"].get("distribution") or {}).get("files_sha256")),
    }
    differing = sorted(name for name, (frozen, ran) in pairs.items() if frozen != ran)
    mode_frozen = ctx.mode in freeze["modes"]
    report.expect("freeze.match", not differing and mode_frozen,
                  "configuration, corpus, model, store, split and source equal the freeze",
                  "no differing field", differing + ([] if mode_frozen else ["modes"]))

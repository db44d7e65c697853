"""The live store against the receipt and the fixture: parts re-hashed, mapping, every fact, every vector."""

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np

from ..core.by_content import of_content
from ..core.context import Context
from ..core.digests import part_digest, sha256_bytes, sha256_canonical
from ..core.reading import is_file
from ..core.report import Report
from ..core.schemas import violation
from ..core.strict_json import StrictJSONError, load_file, loads
from ..retrieval.live_store import LiveStore, load_live_store, read_facts, read_vectors


def _part_digests(directory: Path, manifest: dict[str, Any]) -> dict[str, str | None]:
    return {name: part_digest(directory / part["path"]) for name, part in manifest["parts"].items()}


def _manifest(ctx: Context, report: Report, directory: Path) -> dict[str, Any] | None:
    store = ctx.receipt["store"]
    manifest_path = directory / "store.json"
    if not is_file(manifest_path):
        report.fail("store.live", f"the store the receipt binds is present "
                    f"({ctx.where('the store', '--store-dir DIR', ctx.store_given)})", str(manifest_path), "missing")
        return None
    try:
        manifest = load_file(manifest_path)
    except (OSError, StrictJSONError) as exc:
        report.fail("store.manifest", "the store manifest parses as strict JSON", "strict JSON", str(exc))
        return None
    problem = violation(manifest, "store-manifest")
    if not report.expect("store.manifest", problem is None, "the store manifest matches store-manifest.schema.json",
                         "no violation", problem):
        return None
    live = _part_digests(directory, manifest)
    recorded = {"database": store["database_sha256"], "mapping": store["mapping_sha256"],
                "lexical": store["lexical_sha256"], "dense": store["dense_sha256"]}
    differing = [f"{name} ({directory / manifest['parts'][name]['path']})" for name in sorted(recorded)
                 if live.get(name) != recorded[name]]
    report.equal("store.parts", recorded, live, f"every store part re-hashed from the live files in {directory}, "
                 f"{ctx.where('the store', '--store-dir DIR', ctx.store_given)}"
                 + (f": not as the receipt binds: {', '.join(differing)}" if differing else ""))
    digest = sha256_canonical(live) if None not in live.values() else None
    report.equal("store.live", store["after_run_sha256"], digest, "the live store digest equals the after-run digest")
    report.expect("store.unchanged_by_run", store["before_run_sha256"] == store["after_run_sha256"]
                  == store["store_sha256"], "before-run, after-run and built digests agree",
                  store["store_sha256"], (store["before_run_sha256"], store["after_run_sha256"]))
    return manifest if None not in live.values() else None


def check_store(ctx: Context, report: Report) -> LiveStore | None:
    """Check the store the receipt names; return it for the replay when its parts are all there."""
    store = ctx.receipt["store"]
    directory = ctx.store_dir
    if directory is None:
        report.fail("store.live", "the store the receipt binds is found: " + ctx.places.unplaced("store",
                    "--store-dir DIR"), store.get("store_sha256"), "missing")
        return None
    manifest = _manifest(ctx, report, directory)
    if manifest is None:
        return None
    mapping_part = manifest["parts"]["mapping"]["path"]
    own = (mapping_part, manifest["parts"]["database"]["path"])
    report.equal("store.mapping_path", own, (store["mapping_file"], store["database_file"]),
                 "the receipt's mapping and database are the store's own")
    try:
        data = (directory / mapping_part).read_bytes()
        mapping = loads(data)
    except (OSError, StrictJSONError) as exc:
        report.fail("store.mapping", "the store mapping parses as strict JSON", "strict JSON", str(exc))
        return None
    # a pure function of the bytes, checked once per process for the aggregates that share one store
    problem = of_content(sha256_bytes(data), "store-mapping schema", lambda: violation(mapping, "store-mapping"))
    if not report.expect("store.mapping", problem is None, "the mapping matches store-mapping.schema.json",
                         "no violation", problem):
        return None
    doc_to_fact: dict[str, int] = mapping["doc_to_fact"]
    fixture = ctx.fixture or {"documents": []}
    documents = [d["doc_id"] for d in fixture["documents"]]
    stated = (mapping["documents"], mapping["fixture_sha256"], mapping["namespace"])
    bound = (len(documents), manifest["binding"]["fixture_sha256"], store["namespace"])
    report.expect("store.mapping_coverage", set(doc_to_fact) == set(documents) and stated == bound
                  and len(documents) == store["document_count"] and len(set(doc_to_fact.values())) == len(doc_to_fact),
                  "the mapping pairs every fixture document with one distinct fact id, and names the fixture the "
                  "store was built from, its document count and the store's namespace",
                  (store["document_count"], bound), (len(doc_to_fact), stated))
    wrong = [(r["doc_id"], r["fact_id"]) for row in ctx.rows for r in row["results"]
             if doc_to_fact.get(r["doc_id"]) != r["fact_id"]]
    report.expect("rows.fact_ids", not wrong, "every result's fact id is the mapping's for its doc id", [], wrong[:5])
    try:
        live = load_live_store(directory, manifest, doc_to_fact, fixture["vectors"]["dimensions"])
    except (OSError, ValueError, StrictJSONError) as exc:
        report.fail("store.vectors", "the stored vectors and tokenizer record are readable", "readable", str(exc))
        return None
    _check_vectors(ctx, report, live)
    _check_facts(ctx, report, live)
    return live


def _check_vectors(ctx: Context, report: Report, live: LiveStore) -> None:
    fixture = ctx.fixture
    assert fixture is not None and ctx.fixture_path is not None
    sidecar = read_vectors(ctx.fixture_path.parent / fixture["vectors"]["file"], fixture["vectors"]["dimensions"])
    position = {d["doc_id"]: i for i, d in enumerate(fixture["documents"])}
    by_fact = sorted(live.doc_to_fact, key=live.doc_to_fact.__getitem__)
    rows = [position.get(doc, -1) for doc in by_fact]
    same = live.vectors.shape[0] == len(rows) and -1 not in rows and sidecar.shape[0] >= len(rows)
    differing = [] if not same else [by_fact[j] for j in np.flatnonzero(
        np.any(live.vectors.view(np.uint32) != sidecar[rows].view(np.uint32), axis=1))]
    report.expect("store.vectors", same and not differing,
                  "every stored dense vector is, byte for byte, the fixture's vector of its mapped document",
                  [], differing[:5] if same else f"{live.vectors.shape[0]} stored rows for {len(rows)} documents")


def _check_facts(ctx: Context, report: Report, live: LiveStore) -> None:
    """Every fact in facts.sqlite3 is its fixture document: title, text, vector, namespace and ordinal."""
    fixture = ctx.fixture
    assert fixture is not None and ctx.fixture_path is not None
    try:
        facts = read_facts(live.part("database"))
    except sqlite3.Error as exc:
        report.fail("store.facts", "the fact database is readable", "readable SQLite", str(exc))
        return
    documents = fixture["documents"]
    dims = fixture["vectors"]["dimensions"]
    sidecar = read_vectors(ctx.fixture_path.parent / fixture["vectors"]["file"], dims)
    namespace = ctx.receipt["store"]["namespace"]
    differing: list[str] = []
    for fact_id, fact_namespace, ordinal, title, body, fact_dims, vector in facts:
        if not (isinstance(ordinal, int) and 0 <= ordinal < len(documents)):
            differing.append(f"fact {fact_id}: ordinal {ordinal!r}")
            continue
        document = documents[ordinal]
        found = (fact_id, fact_namespace, title, body, fact_dims, vector)
        wanted = (live.doc_to_fact.get(document["doc_id"]), namespace, document["title"], document["text"], dims,
                  sidecar[ordinal].tobytes())
        if found != wanted:
            fields = [name for name, a, b in zip(("fact_id", "namespace", "title", "text", "dims", "vector"),
                                                  found, wanted, strict=True) if a != b]
            differing.append(f"fact {fact_id} (document {document['doc_id']}): {', '.join(fields)}")
    if len(facts) != len(documents):
        differing.insert(0, f"{len(facts)} facts for {len(documents)} documents")
    report.expect("store.facts", not differing, f"every one of the {len(facts)} facts in the SQLite store equals its "
                  "fixture document (title, text, vector, namespace, fact id)", [], differing[:5])

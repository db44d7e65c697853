"""The system under test as the receipt names it: its source re-hashed, and for a system from outside the harness,
its local parts re-hashed, its mapping, and what it only attests.

The built-in system's store is checked part by part against the fixture (check_store.py). A system of its own
keeps its parts in its own formats: the validator re-hashes them (so they are the parts that ran, unchanged),
reads nothing inside them, and replays a lane only where the system declares what the validator can recompute
(dense: exact inner product over the fixture's vectors). What a remote engine holds cannot be hashed: it is
recorded as attested, in words, never as a pass.
"""

from pathlib import Path

import numpy as np

from ..core.context import Context
from ..core.declared import DENSE_EXACT
from ..core.digests import part_digest, sha256_canonical, sha256_file
from ..core.reading import is_dir, is_file
from ..core.report import Report
from ..core.settled import settled_digest
from ..retrieval.lanes import Replay
from ..retrieval.live_store import read_vectors
from ..retrieval.ranking import id_ranks


def check_system_source(ctx: Context, report: Report) -> None:
    source = ctx.receipt["system"]["source"]
    root = ctx.source_root
    if root is None or not is_dir(root):
        where = ctx.places.unplaced("source root", "nothing: it is attested") if root is None else f"{root} is absent"
        report.attest("system.source", f"the system's source root {source['root']!r} is not found on this machine "
                      f"({where}): its digest {source['sha256']} is the run's statement")
        return
    found = {name: settled_digest(root / name) if is_file(root / name) else None for name in source["files"]}
    differing = sorted(name for name, digest in found.items() if digest != source["files"][name])
    report.expect("system.source", not differing and sha256_canonical(source["files"]) == source["sha256"],
                  f"the system's {len(found)} source files re-hashed under {root}", [], differing[:5])


def _module_file(ctx: Context, module: dict[str, str]) -> Path | None:
    """A module of the system's source by its path under the source root (as it is now; None when that root is not
    found here), any other by its path."""
    if "source_path" not in module:
        return Path(module["path"])
    root = ctx.source_root
    return root / module["source_path"] if root is not None else None


def check_system_modules(ctx: Context, report: Report) -> None:
    """The modules the system's process loaded beyond the standard library, its distributions and the harness:
    every file on this machine re-hashed (one of the system's source under its source root as it is now); one that is
    not here is the run's statement. The distributions' versions and the declared environment variables' digests
    cannot be re-established after the run: attested."""
    system = ctx.receipt["system"]
    modules = system["modules"]
    files = {name: _module_file(ctx, module) for name, module in modules.items()}
    found = {name: file for name, file in files.items() if file is not None and is_file(file)}
    here = {name: module for name, module in modules.items() if name in found}
    differing = sorted(name for name, module in here.items() if sha256_file(found[name]) != module["sha256"])
    report.expect("system.modules", not differing, f"the {len(here)} modules the system loaded beyond the standard "
                  "library, its distributions and the harness re-hashed from their files", [], differing[:5])
    absent = sorted(set(modules) - set(here))
    if absent:
        report.attest("system.modules", f"{len(absent)} modules the system loaded are not on this machine "
                      f"({', '.join(absent[:5])}): their digests are the run's statement")
    if system["distributions"] or system["environment"]:
        report.attest("system.runtime", f"the system's process ran distributions {system['distributions']} and "
                      f"declared environment variables {sorted(system['environment'])} (bound by the sha256 of their "
                      "values): the run's statement")


def check_system_store(ctx: Context, report: Report) -> None:
    """A system of its own: parts re-hashed, digests before and after the run, the fixture-position mapping."""
    store = ctx.receipt["store"]
    directory = ctx.store_dir
    if directory is None:
        report.fail("store.parts", "the system's directory the receipt binds is found: "
                    + ctx.places.unplaced("store", "--store-dir DIR"), store.get("store_sha256"), "missing")
        return
    # a part's path is inside the system's directory
    live = {name: part_digest(directory / part["path"]) for name, part in store["parts"].items()}
    recorded = {name: part["sha256"] for name, part in store["parts"].items()}
    differing = [f"{name} ({directory / store['parts'][name]['path']})" for name in sorted(recorded)
                 if live.get(name) != recorded[name]]
    report.equal("store.parts", recorded, live, f"every part of the system re-hashed from the live files in "
                 f"{directory}, {ctx.where('the store', '--store-dir DIR', ctx.store_given)}"
                 + (f": not as the receipt binds: {', '.join(differing)}" if differing else ""))
    digest = sha256_canonical(live) if None not in live.values() else None
    report.equal("store.live", store["after_run_sha256"], digest, "the live parts' digest equals the after-run digest")
    report.expect("store.unchanged_by_run", store["before_run_sha256"] == store["after_run_sha256"]
                  == store["store_sha256"], "before-run, after-run and built digests agree",
                  store["store_sha256"], (store["before_run_sha256"], store["after_run_sha256"]))
    documents = [d["doc_id"] for d in (ctx.fixture or {"documents": []})["documents"]]
    position = {doc_id: i for i, doc_id in enumerate(documents, start=1)}
    report.expect("store.mapping_coverage", sha256_canonical({"doc_to_fact": position}) == store["mapping_sha256"]
                  and len(documents) == store["document_count"],
                  "the system's mapping is the fixture's document positions, every document once",
                  store["document_count"], len(documents))
    wrong = [(r["doc_id"], r["fact_id"]) for row in ctx.rows for r in row["results"]
             if position.get(r["doc_id"]) != r["fact_id"]]
    report.expect("rows.fact_ids", not wrong, "every result's fact id is its document's fixture position (from 1)", [],
                  wrong[:5])
    if store["attested"]:
        report.attest("system.attested", f"what the system holds beyond its local parts is its own statement: "
                      f"{sorted(store['attested'])}")


def fixture_replay(ctx: Context) -> Replay | None:
    """A system of its own that declares exact inner product: its dense lane replayed over the fixture's vectors."""
    fixture = ctx.fixture
    if fixture is None or ctx.fixture_path is None or ctx.receipt["system"]["declarations"].get("dense") != DENSE_EXACT:
        return None
    documents = [d["doc_id"] for d in fixture["documents"]]
    vectors = read_vectors(ctx.fixture_path.parent / fixture["vectors"]["file"], fixture["vectors"]["dimensions"])
    if vectors.shape[0] < len(documents):
        return None
    matrix = np.ascontiguousarray(vectors[: len(documents)])
    return Replay(documents, id_ranks(documents), matrix, None)

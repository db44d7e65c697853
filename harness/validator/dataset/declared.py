"""A collection of the publisher's own: no pin the validator holds, so the fixture is that collection only as
re-derived by the validator's reader from the archive the reader is given, whose sha256 must be the one the fixture
declares. The identity is the publisher's declared digest, and every line says so.
"""

import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.digests import sha256_bytes, sha256_file
from ..core.report import Report
from .archive_reader import parse
from .check_dataset import fixture_against
from .content import Content

DECLARED = "the publisher's declared archive digest (no public pin)"


def _roles(source: dict[str, Any]) -> dict[str, str] | None:
    """corpus, queries and the judged qrels among the members the fixture says it used (BEIR's file names)."""
    used = sorted(set(source.get("members") or {}) - set(source.get("unused_members") or []))
    found = {"corpus": [n for n in used if n.endswith("corpus.jsonl")],
             "queries": [n for n in used if n.endswith("queries.jsonl")],
             "qrels": [n for n in used if n.endswith(".tsv")]}
    return {role: names[0] for role, names in found.items()} if all(len(v) == 1 for v in found.values()) else None


def _derive(path: Path, source: dict[str, Any], roles: dict[str, str]) -> tuple[dict[str, str], Content]:
    """The members by role, each checked against the sha256 the fixture declares, then parsed."""
    with zipfile.ZipFile(path) as archive:
        bodies = {role: archive.read(name) for role, name in roles.items()}
    found = {roles[role]: sha256_bytes(body) for role, body in bodies.items()}
    wrong = {member: digest for member, digest in found.items() if digest != source["members"][member].get("sha256")}
    return wrong, parse(bodies["corpus"], bodies["queries"], bodies["qrels"])


def check_declared(fixture: dict[str, Any], receipt: dict[str, Any], archive: Path | None, report: Report,
                   unplaced: Callable[[str, str], str] | None = None) -> None:
    """`archive`: the one named, else the one the run's locations.json places by the declared digest; without one
    the collection is not verified (`unplaced` says why none was placed)."""
    name, source = fixture["contract"].get("name"), fixture.get("source") or {}
    report.equal("corpus.ir_datasets_id", None, receipt["corpus"]["ir_datasets_id"], f"a collection the validator "
                 f"holds no pins for ({name!r}) names no ir_datasets id: it is no public dataset")
    what = (f"the fixture is the collection {name!r} re-derived from the archive given, whose sha256 is the one the "
            f"fixture declares ({DECLARED})")
    if archive is None:
        wanted = f"{fixture['contract'].get('namespace') or name}.zip (sha256 {source.get('archive_sha256')})"
        why = unplaced("archive", f"--archive {wanted}") if unplaced is not None else f"pass --archive {wanted}"
        report.unverified("corpus.pinned", f"the collection {name!r} is not re-derived: no archive is at hand ({why}; "
                          "a bundle carries it)")
        return
    if not archive.is_file():
        report.fail("corpus.pinned", what, "the collection's archive, passed with --archive",
                    f"{archive} is not a file")
        return
    declared, found = source.get("archive_sha256"), sha256_file(archive)
    roles = _roles(source)
    report.expect("archive.members", found == declared and roles is not None, f"{archive} is the archive the fixture "
                  "declares (sha256), and the fixture names one corpus, queries and qrels member",
                  declared, found if roles is not None else "no single corpus, queries and qrels member")
    if found != declared or roles is None:
        report.fail("corpus.pinned", what, declared, f"{archive} has {found}")
        return
    try:
        wrong, derived = _derive(archive, source, roles)
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, zlib.error) as exc:
        report.fail("corpus.pinned", what, "a readable BEIR archive", f"{archive}: {exc}")
        return
    problems = [f"member {member} has {digest}" for member, digest in wrong.items()]
    problems += fixture_against(derived, fixture, int(fixture["contract"]["semantic_text_max_code_points"]))
    shape = {key: fixture["contract"].get(key) for key in derived.shape()}
    problems += [] if derived.shape() == shape else [f"counts {derived.shape()}, the contract states {shape}"]
    report.expect("archive.content", not problems, "every document, test query, judgement and semantic text of the "
                  "fixture equals the validator's own reading of the archive", [], problems)
    report.expect("corpus.pinned", not problems, what, "the re-derived collection", problems)
    report.notes["archive"] = f"re-derived from {archive} ({found}, {DECLARED})"
    report.notes["dataset"] = {
        "name": name, "title": f"{name} (a collection of the publisher's own)",
        "scope": f"retrieval on the collection {name!r}: {shape['documents']} documents, {shape['test_queries']} "
                 "judged queries",
        "pinned_by": f"{DECLARED}: {found}, re-derived by the validator from the archive",
        "archive": archive.name, "archive_is": f"the publisher's own archive of {name!r}, sha256 {found}",
        "own": True, "established": not problems}

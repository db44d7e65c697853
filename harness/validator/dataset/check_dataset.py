"""The fixture held to the validator's own pins, and, with the archive at hand, re-derived from it.

`corpus.pinned`, `corpus.contract`, `corpus.semantic_text` and `profile.contract` read only the fixture's
content and the pins (`corpus.ir_datasets_id` holds the receipt's ir_datasets id to the pins' own): no flag or
digest the fixture states about itself is taken. `archive.members` and
`archive.content` run when the verifier supplies the archive (`--archive`, or `SCIFACT_ARCHIVE` when it
holds this dataset's members).
"""

import os
from pathlib import Path
from typing import Any

from ..core.by_content import of_content
from ..core.reading import is_file, recorded_cache
from ..core.report import Report
from .archive_reader import ArchiveUnreadable, Derived, read_archive
from .content import Content, first_differences, fixture_semantic_texts, semantic_digests, semantic_texts
from .model_prompts import model_prompts_problem
from .pins import Pins, all_pins, pins_for

ARCHIVE_VARIABLE = "SCIFACT_ARCHIVE"


def _content_differences(pins: Pins, content: Content, digests: dict[str, str]) -> list[str]:
    problems = []
    if digests["qrels"] != pins.content_sha256["qrels"]:
        judged = {q: content.qrels.get(q) for q in set(content.qrels) | set(pins.qrels)}
        problems.append(f"judgements differ for {sum(judged[q] != pins.qrels.get(q) for q in judged)} queries "
                        f"(first: {first_differences(pins.qrels, content.qrels)})")
    if digests["queries"] != pins.content_sha256["queries"]:
        ids = {query_id for query_id, _ in content.queries}
        missing, extra = sorted(set(pins.qrels) - ids), sorted(ids - set(pins.qrels))
        problems.append(f"test queries differ: {len(ids)} of the pinned {len(pins.qrels)}, {len(missing)} missing "
                        f"(first: {missing[:3]}), {len(extra)} not pinned (first: {extra[:3]})"
                        if missing or extra else "test query texts differ from the pinned texts")
    if digests["documents"] != pins.content_sha256["documents"]:
        problems.append(f"documents differ: {len(content.documents)} documents, pinned "
                        f"{pins.contract['documents']}; their canonical digest is not the pinned one")
    return problems


def check_dataset(fixture: dict[str, Any], receipt: dict[str, Any], report: Report,
                  fixture_sha256: str | None = None) -> Pins | None:
    """The pins of the fixture's dataset, when the validator holds them; None for a collection it holds no pins for,
    which is then that collection only as re-derived from its archive (`declared.check_declared`).
    `fixture_sha256`, the digest of the bytes the fixture was parsed from, keeps the recomputed digests for the
    process."""
    pins = pins_for(fixture["contract"].get("name"))
    if pins is None:
        return None
    content = Content.of_fixture(fixture)
    problems = [] if pins.archive_only else _content_differences(
        pins, content, of_content(fixture_sha256, "content digests", content.digests))
    if not pins.archive_only and not problems and fixture["source"].get("payload_pinned") is not True:
        problems.append("the content is the pinned content, yet the fixture says its payload was not pinned "
                        f"(source.payload_pinned {fixture['source'].get('payload_pinned')!r})")
    if not pins.archive_only:  # else the archive decides it (check_archive)
        report.expect("corpus.pinned", not problems, f"documents, test queries and judgements re-hashed from the "
                      f"fixture equal the validator's own pins of {pins.title}", "the pinned content", problems)
    report.equal("corpus.contract", pins.contract, fixture["contract"],
                 f"the fixture's contract terms (shape, ceiling, prefixes, top_k, calibration count) are "
                 f"{pins.title}'s")
    report.equal("corpus.ir_datasets_id", pins.ir_datasets_id, receipt["corpus"]["ir_datasets_id"],
                 f"the receipt names {pins.title} by the ir_datasets id the validator pins for it "
                 f"({pins.ir_datasets_id or 'none: ir_datasets does not hold it'})")
    found_profile = {key: fixture["profile"].get(key) for key in pins.profile}
    prompted = model_prompts_problem(fixture, pins.profile)
    fixture_contract = found_profile == pins.profile or prompted is None
    report.expect("profile.contract", fixture_contract and receipt["profile"] == fixture["profile"],
                  "the fixture's text profile is the pinned contract profile" + (
                      " asked with the embedding model's own prompts in place of its prefixes" if prompted is None
                      else f" ({prompted})" if fixture["profile"].get("name") == "model-prompts" else "")
                  + " and the receipt's is the fixture's (a parity profile is a check, never a claim)",
                  pins.profile, {"fixture": found_profile, "receipt": receipt["profile"].get("name")})
    if fixture_contract:  # another profile's texts follow another rule; such a run already fails profile.contract
        _check_semantic_texts(pins, content, fixture, fixture_sha256, report,
                              content_pinned=not problems and not pins.archive_only)
    report.notes["dataset"] = {"name": pins.dataset, "title": pins.title, "scope": pins.scope,
                               "pinned_by": "the validator's own pins (harness/validator/dataset/pins)"
                               + (", by the publisher's archive size and md5" if pins.archive_only else ""),
                               "archive": pins.archive_name,
                               "archive_is": f"the public archive of {pins.title}" if pins.archive_name else None,
                               # by content: the pinned content re-hashed (an archive-only pin: once re-derived)
                               "established": not problems and not pins.archive_only}
    return pins


def _semantic_findings(ceiling: int, content: Content, fixture: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The texts whose stated semantic text is not the one derived from their title and text, and the derived
    texts' digests."""
    derived = semantic_texts(content, ceiling)
    found = fixture_semantic_texts(fixture)
    differing = [f"{kind[:-1]} {i}" for kind in ("documents", "queries")
                 for i in first_differences(derived[kind], found[kind])]
    return differing, semantic_digests(derived)


def _check_semantic_texts(pins: Pins, content: Content, fixture: dict[str, Any], fixture_sha256: str | None,
                          report: Report, *, content_pinned: bool) -> None:
    """Each text derived from the fixture's own title and text; on pinned content, the texts' digests are the
    pinned ones too (unpinned content is corpus.pinned's to report)."""
    ceiling = int(pins.profile["max_code_points"])
    differing, digests = of_content(fixture_sha256, f"semantic texts at {ceiling}",
                                    lambda: _semantic_findings(ceiling, content, fixture))
    pinned = not content_pinned or digests == {k: pins.content_sha256[k] for k in digests}
    report.expect("corpus.semantic_text", not differing and pinned, "every document's and query's semantic text is "
                  "the validator's own derivation under the contract rule (digests pinned)", [],
                  differing or "the derived texts' digests are not the pinned ones")


@recorded_cache(maxsize=4)
def _derived(path: Path, size: int, modified: int, dataset: str) -> Derived:
    return read_archive(path, all_pins()[dataset])


def check_archive(fixture: dict[str, Any], pins: Pins, archive: Path | None, report: Report,
                  hinted: Path | None = None) -> None:
    """`archive`: the verifier's explicit archive (its members must be the pins'); None offers the archive the run's
    locations.json places by the fixture's declared digest (`hinted`), else $SCIFACT_ARCHIVE, each used only when it
    holds this dataset's members."""
    explicit = archive is not None
    path = archive or hinted or (Path(os.environ[ARCHIVE_VARIABLE]) if os.environ.get(ARCHIVE_VARIABLE) else None)
    if path is None or not is_file(path):
        report.notes["archive"] = (f"not re-derived: {path} is not a file" if path is not None else
                                   f"not re-derived (no --archive, no ${ARCHIVE_VARIABLE}): the fixture is held to "
                                   "the pinned digests only")
        if explicit:
            report.fail("archive.members", "the archive named by --archive is readable", "a file", str(path))
        _unpinned_without_archive(pins, report)
        return
    try:
        stat = path.stat()
        derived = _derived(path.resolve(), stat.st_size, stat.st_mtime_ns, pins.dataset)
    except ArchiveUnreadable as exc:
        report.fail("archive.members", "the archive is a readable zip", "a zip archive", str(exc))
        named = "--archive" if explicit else "the archive locations.json places" if path == hinted else \
            f"${ARCHIVE_VARIABLE}"
        report.input_problem = (f"{named} {exc}; pass the dataset's zip archive (e.g. scifact.zip)"
                                + ("" if explicit or path == hinted else f", or unset ${ARCHIVE_VARIABLE}"))
        return
    if not explicit and (derived.content is None if pins.archive_only
                         else all(found is None for found in derived.member_sha256.values())):
        source = "the archive locations.json places" if path == hinted else f"${ARCHIVE_VARIABLE}"
        report.notes["archive"] = (f"not re-derived: {source} ({path}) "
                                   + ("is not" if pins.archive_only else "holds no member of") + f" {pins.title}"
                                   + ("'s archive" if pins.archive_only else ""))
        _unpinned_without_archive(pins, report)
        return
    _report_archive(fixture, pins, path, derived, report)


def _unpinned_without_archive(pins: Pins, report: Report) -> None:
    """A dataset pinned by its archive alone is this dataset only as re-derived from that archive."""
    if pins.archive_only:
        name = pins.archive_name or "the dataset's zip"
        report.fail("corpus.pinned", f"the fixture's documents, test queries and judgements re-derived from the "
                    f"publisher's archive of {pins.title}, which the validator pins by size and md5 only",
                    f"the archive, passed with --archive {name}", "no archive to re-derive from")


def _report_archive(fixture: dict[str, Any], pins: Pins, path: Path, derived: Derived, report: Report) -> None:
    if pins.archive_only:
        _report_publishers(fixture, pins, path, derived, report)
        return
    wrong = {name: found for name, found in derived.member_sha256.items() if found != pins.member_files[name]["sha256"]}
    original = pins.original_container
    container = (f"container md5 {derived.archive_md5}" if original is None
                 else "the publisher's original container" if (derived.archive_bytes, derived.archive_md5)
                 == (original["bytes"], original["md5"]) else f"a repacked container (md5 {derived.archive_md5})")
    report.expect("archive.members", not wrong, f"{path}: every pinned member is the pinned bytes ({container})",
                  {name: pins.member_files[name]["sha256"] for name in wrong}, wrong)
    if derived.content is None:
        report.notes["archive"] = f"not re-derived: {path} does not hold the pinned members"
        return
    problems = fixture_against(derived.content, fixture, int(pins.profile["max_code_points"]))
    report.expect("archive.content", not problems, "every document, test query, judgement and semantic text of the "
                  "fixture equals the validator's own reading of the archive", [], problems)
    report.notes["archive"] = f"re-derived from {path} ({container})"


def _report_publishers(fixture: dict[str, Any], pins: Pins, path: Path, derived: Derived, report: Report) -> None:
    """The archive must be the publisher's by size and md5; then the fixture must be what it holds."""
    original = pins.original_container or {}
    report.expect("archive.members", derived.content is not None, f"{path} is the publisher's archive of "
                  f"{pins.title} (size and md5 as pinned by {original.get('pinned_by', 'the pins')})",
                  {"bytes": original.get("bytes"), "md5": original.get("md5")},
                  {"bytes": derived.archive_bytes, "md5": derived.archive_md5})
    if derived.content is None:
        report.fail("corpus.pinned", f"the fixture re-derived from the publisher's archive of {pins.title}",
                    "the publisher's archive", f"{path} is another archive (md5 {derived.archive_md5})")
        return
    problems = fixture_against(derived.content, fixture, int(pins.profile["max_code_points"]))
    shape = derived.content.shape()
    wrong_shape = {k: v for k, v in shape.items() if pins.contract.get(k) != v}
    report.expect("archive.content", not problems, "every document, test query, judgement and semantic text of the "
                  "fixture equals the validator's own reading of the archive", [], problems)
    report.expect("corpus.pinned", not problems and not wrong_shape, f"the fixture's documents, test queries and "
                  f"judgements are those of the publisher's archive of {pins.title}, in the pinned counts",
                  {k: pins.contract.get(k) for k in shape}, wrong_shape or problems)
    report.notes["archive"] = f"re-derived from {path} (the publisher's archive, md5 {derived.archive_md5})"
    if not problems and not wrong_shape and isinstance(report.notes.get("dataset"), dict):
        report.notes["dataset"]["established"] = True


def fixture_against(derived: Content, fixture: dict[str, Any], ceiling: int) -> list[str]:
    found = Content.of_fixture(fixture)
    problems = []
    for kind, expected, got in (
            ("document", {i: (t, x) for i, t, x in derived.documents}, {i: (t, x) for i, t, x in found.documents}),
            ("query", dict(derived.queries), dict(found.queries)),
            ("judgements of query", derived.qrels, found.qrels)):
        problems += [f"{kind} {i}" for i in first_differences(expected, got)]
    texts, fixture_texts = semantic_texts(derived, ceiling), fixture_semantic_texts(fixture)
    problems += [f"semantic text of {kind[:-1]} {i}" for kind in ("documents", "queries")
                 for i in first_differences(texts[kind], fixture_texts[kind])]
    return problems

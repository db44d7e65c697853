"""The publishable bundle: validated artifacts, their context, a manifest of digests and CLAIMS.md.

Every aggregate is validated by the independent validator (it shares no code with the runner); one
that is not eligible stops the bundle. Beside them: the comparisons (validated too), the HTML and Markdown
reports, TREC runs and qrels and per-query CSVs (`harness.publish.bundle_publications`). The bundle is
assembled in a temporary sibling and renamed into place, and an existing bundle directory is never written into.
"""

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from harness.errors import RefusedError
from harness.evaluation.artifacts import aggregate_name, rows_name
from harness.evaluation.freeze import FREEZE_NAME
from harness.evaluation.split_modes import frozen_modes, present_modes
from harness.hashing import sha256_canonical, sha256_file
from harness.json_input import read_document
from harness.publish.bundle_publications import add_comparisons, add_exports_and_reports
from harness.publish.claims_document import claims_markdown
from harness.validator.pipeline import validate
from harness.validator.report import Report

REQUIRED_SPLITS = ("calibration", "heldout")


class BundleError(RefusedError):
    """The bundle cannot be made: missing artifacts, or an aggregate that fails validation."""


def _aggregates(output_dir: Path) -> list[Path]:
    """The aggregates to bundle: every frozen mode's calibration and held-out receipts, and its all-query receipts
    when every frozen mode has one."""
    modes = frozen_modes(output_dir)
    if modes is None:
        raise BundleError(f"{output_dir} holds no {FREEZE_NAME}: a bundle publishes frozen runs; run `python -m "
                          "harness freeze` after calibration, then the held-out split")
    missing = [aggregate_name(m, s) for s in REQUIRED_SPLITS for m in modes
               if not (output_dir / aggregate_name(m, s)).is_file()]
    if missing:
        raise BundleError(f"{output_dir} lacks {', '.join(missing)}: a bundle holds the calibration and held-out "
                          f"receipts of every frozen mode ({', '.join(modes)})")
    splits = [*REQUIRED_SPLITS, *(["all"] if set(modes) <= set(present_modes(output_dir, "all")) else [])]
    return [output_dir / aggregate_name(m, s) for s in splits for m in modes]


def _validate(aggregate: Path, destination: Path, known: dict[str, Report]) -> tuple[dict[str, Any], str | None]:
    """Validate; write the JSON report; return it, and None when eligible, else the verdict and failing checks.
    The report is also kept in `known`, by the aggregate's sha256, for the comparisons' validation."""
    report = validate(aggregate, full_embedding=True)
    known[sha256_file(aggregate)] = report
    written = report.to_dict()
    destination.write_text(json.dumps(written, indent=1, default=str) + "\n", encoding="utf-8")
    if report.eligible:
        return written, None
    problems = [check.line() for check in report.checks if check.status != "pass"]
    return written, f"{aggregate.name}: {report.verdict()}\n    " + "\n    ".join(problems[:8])


def _fixture_metadata(path: Path) -> dict[str, Any]:
    fixture = json.loads(path.read_bytes())
    return {"fixture_path": str(path), "fixture_sha256": sha256_file(path),
            **{k: v for k, v in fixture.items() if k not in ("documents", "queries")}}


def make_bundle(output_dir: Path, bundle_dir: Path) -> Path:
    if bundle_dir.exists():
        raise BundleError(f"{bundle_dir} exists; a bundle is never overwritten. Choose a new --bundle-dir.")
    bundle_dir.parent.mkdir(parents=True, exist_ok=True)
    # A staging directory of its own: a second bundle at the same time never writes into (or removes) this one's.
    staging = Path(tempfile.mkdtemp(prefix=f".{bundle_dir.name}.partial-", dir=bundle_dir.parent))
    try:
        (staging / "artifacts").mkdir()
        (staging / "validation").mkdir()
        aggregates = _aggregates(output_dir)
        refused, reports = [], []
        known: dict[str, Report] = {}
        for aggregate in aggregates:
            report, problem = _validate(aggregate, staging / "validation" / (
                aggregate.name.removesuffix(".aggregate.json") + ".validation.json"), known)
            reports.append(report)
            if problem is not None:
                refused.append(problem)
        if refused:
            raise BundleError("not every aggregate is eligible, so nothing was bundled; the failing checks are listed "
                              "above, and `python -m harness.validator AGGREGATE` shows each report in full\n"
                              + "\n".join(refused))
        receipts = [json.loads(a.read_bytes()) for a in aggregates]
        for aggregate, receipt in zip(aggregates, receipts, strict=True):
            shutil.copy2(aggregate, staging / "artifacts" / aggregate.name)
            shutil.copy2(output_dir / rows_name(receipt["mode"], receipt["split"]),
                         staging / "artifacts" / rows_name(receipt["mode"], receipt["split"]))
        shutil.copy2(output_dir / FREEZE_NAME, staging / FREEZE_NAME)
        first = receipts[0]["receipt"]
        _write(staging / "fixture-metadata.json", _fixture_metadata(Path(first["corpus"]["fixture_path"])))
        _write(staging / "configuration.json", {"config": first["retrieval"]["config"],
                                                "config_sha256": first["retrieval"]["config_sha256"]})
        _write(staging / "environment.json", {k: first[k] for k in ("executable", "source", "dependencies", "machine")})
        freeze = read_document(output_dir / FREEZE_NAME, "freeze record", "freeze",
                               "bundle the output directory the freeze and the receipts belong to", BundleError)
        splits = list(dict.fromkeys(receipt["split"] for receipt in receipts))
        comparisons = add_comparisons(staging, output_dir, splits, known)
        add_exports_and_reports(staging, splits, known)
        (staging / "CLAIMS.md").write_text(claims_markdown(receipts, freeze, reports, comparisons), encoding="utf-8")
        files = sorted(p for p in staging.rglob("*") if p.is_file())
        manifest = {p.relative_to(staging).as_posix(): sha256_file(p) for p in files}
        _write(staging / "MANIFEST.json", {"files": manifest, "manifest_sha256": sha256_canonical(manifest)})
        if bundle_dir.exists():
            raise BundleError(f"{bundle_dir} appeared while this bundle was made (another bundle?); a bundle is never "
                              "overwritten. Choose a new --bundle-dir.")
        staging.rename(bundle_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return bundle_dir


def _write(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

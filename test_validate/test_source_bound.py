"""The source state is bound at the run's start, and a clean one is the publisher's word: the run ledger's run-started
event binds the sha256 of the receipt's `source` block, so a dirty run's receipt rewritten to a clean tree's FAILs
`ledger.run`; a forger who rewrites the whole chain too gets `source.clean` ATTESTED, never PASS."""

from pathlib import Path

from harness.validator.core.report import ATTESTED, FAIL
from harness.validator.pipeline import validate

from . import forger
from .support import Json, RunCopy, describe

MODE, SPLIT = "fts_only", "calibration"


def _dirty(source: Json) -> None:
    source["git"].update(available=True, dirty=True, changed_paths=["harness/evaluation/runner.py"])


def _clean(source: Json) -> None:
    source["git"].update(available=True, dirty=False, changed_paths=[])


def _rebind(copy: RunCopy, store: Path) -> None:
    assert store == copy.scratch / "store"
    forger.rebind_source(copy, MODE, SPLIT)


def _status(copy: RunCopy, name: str) -> tuple[str, str]:
    report = validate(copy.aggregate_path(MODE, SPLIT), embeddings=False)
    found = [c for c in (*report.checks, *report.attestations) if c.name == name]
    assert len(found) == 1, describe(report)
    return found[0].status, "\n".join(report.lines())


def test_the_ledger_binds_the_source_a_run_started_from(run_copy: RunCopy) -> None:
    store = run_copy.copy_store()
    run_copy.edit_receipt(MODE, SPLIT, lambda r: _dirty(r["source"]))  # a run from a dirty tree, ...
    _rebind(run_copy, store)  # ... as its ledger recorded it
    assert _status(run_copy, "ledger.run")[0] == "pass"
    assert _status(run_copy, "source.clean")[0] == FAIL

    run_copy.edit_receipt(MODE, SPLIT, lambda r: _clean(r["source"]))  # its receipt rewritten to a clean tree's
    status, said = _status(run_copy, "ledger.run")
    assert status == FAIL and "source_sha256" in said, said

    _rebind(run_copy, store)  # the chain rewritten too: consistent, and still only the publisher's word
    assert _status(run_copy, "ledger.run")[0] == "pass"
    status, said = _status(run_copy, "source.clean")
    assert status == ATTESTED and "the publisher's record says" in said, said
    assert "PASS         source.clean" not in said

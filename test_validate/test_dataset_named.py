"""`--dataset NAME` held to what the validator established: one dataset, the name it carries; a comparison of runs on
several datasets is a run of none of them, so naming one of its datasets fails. The reader's `--bundle` with
`--dataset` is in test_bundle_reader.py."""

from harness.validator.core.report import Report
from harness.validator.dataset.named import CHECK, check_named


def _status(report: Report) -> str:
    return next(c.status for c in report.checks if c.name == CHECK)


def test_the_established_dataset_is_the_one_named() -> None:
    report = Report("tiny-test-fts_only-heldout.aggregate.json")
    report.notes["dataset"] = {"name": "tiny-test"}
    check_named(report, "tiny-test")
    assert _status(report) == "pass"
    other = Report("tiny-test-fts_only-heldout.aggregate.json")
    other.notes["dataset"] = {"name": "tiny-test"}
    check_named(other, "scifact")
    assert _status(other) == "fail"


def test_a_comparison_over_two_datasets_is_a_run_of_neither() -> None:
    for wanted in ("tiny-test", "scifact"):
        report = Report("tiny-test-systems-heldout.json")
        report.notes["compared_datasets"] = ["scifact", "tiny-test"]
        check_named(report, wanted)
        assert _status(report) == "fail", wanted


def test_nothing_established_fails() -> None:
    report = Report("broken.aggregate.json")
    check_named(report, "tiny-test")
    assert _status(report) == "fail"

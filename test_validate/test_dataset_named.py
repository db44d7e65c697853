"""`--dataset NAME` held to what the validator established: one dataset, by the name its runs' files carry (the
pins' artifact name: beir-scifact's runs are scifact's, once its content is established as the pinned one); a
comparison of runs on several datasets is a run of none of them, so naming one of its datasets fails; nothing
established fails naming why. The reader's `--bundle` with `--dataset` is in test_bundle_reader.py."""

from typing import Any

from harness.validator.core.report import Report
from harness.validator.dataset.named import CHECK, check_named


def _named(wanted: str, **notes: Any) -> Any:
    report = Report("artifact")
    report.notes.update(notes)
    check_named(report, wanted)
    [check] = [c for c in report.checks if c.name == CHECK]
    return check


def test_the_established_dataset_is_named_by_its_artifact_name() -> None:
    pinned = {"name": "beir-scifact", "established": True}
    check = _named("scifact", dataset=pinned)
    assert check.status == "pass"
    assert check.detail == "--dataset scifact: the validator established the dataset itself, by its content: scifact"
    check = _named("beir-scifact", dataset=pinned)
    assert (check.status, check.expected, check.found) == ("fail", "beir-scifact", ["scifact"])
    check = _named("tiny-test", dataset=pinned)
    assert (check.status, check.found) == ("fail", ["scifact"])
    check = _named("scifact", dataset={"name": "beir-scifact", "established": False})  # its content was not SciFact's
    assert (check.status, check.found) == ("fail", None)


def test_a_comparison_is_named_by_the_datasets_of_its_inputs() -> None:
    check = _named("tiny-test", compared_datasets=["tiny-test"])
    assert check.status == "pass"
    assert check.detail == ("--dataset tiny-test: the validator established the dataset itself, by its content: "
                            "tiny-test")
    for wanted in ("tiny-test", "scifact"):
        check = _named(wanted, compared_datasets=["scifact", "tiny-test"])
        assert (check.status, check.expected, check.found) == ("fail", wanted, ["scifact", "tiny-test"]), wanted
        assert check.detail.endswith("by its content: scifact, tiny-test"), check.detail


def test_nothing_established_fails_naming_why() -> None:
    cases: list[dict[str, Any]] = [{}, {"dataset": {"name": ""}}, {"dataset": "beir-scifact"},
                                   {"compared_datasets": []}]
    for notes in cases:
        check = _named("scifact", **notes)
        assert (check.status, check.expected, check.found) == ("fail", "scifact", None), notes
        assert check.detail == ("--dataset scifact: the validator established no dataset for this artifact (its "
                                "fixture or its inputs could not be read; see the checks above)"), check.detail

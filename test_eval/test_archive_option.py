"""The collection's archive, known to every command that validates: `--archive` of compare, report, export and bundle
places it, by the digest the runs declare, in each output directory's locations.json (as `run` does), and a zip no
run there was built from is refused naming both digests; `contract` refused leaves no zip behind."""

import json
from pathlib import Path

import pytest

from fixtures.archives import tiny_members
from harness.cli import app as cli
from harness.cli.archive_option import place_archive_option
from harness.cli.parsing.paths import PathArgumentError
from harness.evaluation.receipts.locations import ARCHIVES, LOCATIONS_NAME
from harness.hashing import sha256_file


def _output_dir(path: Path, declared: str) -> Path:
    path.mkdir(parents=True)
    receipt = {"receipt": {"corpus": {"source": {"archive_sha256": declared}}}}
    (path / "mine-hybrid-calibration.aggregate.json").write_text(json.dumps(receipt), encoding="utf-8")
    return path


def test_the_archive_is_placed_where_the_runs_declare_it_and_another_is_refused(tmp_path: Path) -> None:
    archive, other = tmp_path / "mine.zip", tmp_path / "other.zip"
    archive.write_bytes(b"the collection")
    other.write_bytes(b"another collection")
    declared = sha256_file(archive)
    mine, theirs = _output_dir(tmp_path / "mine", declared), _output_dir(tmp_path / "theirs", sha256_file(other))
    place_archive_option(archive, [mine, theirs])
    placed = json.loads((mine / LOCATIONS_NAME).read_text(encoding="utf-8"))[ARCHIVES]
    assert placed == {declared: str(archive)} and not (theirs / LOCATIONS_NAME).exists()
    with pytest.raises(PathArgumentError) as refused:
        place_archive_option(other, [mine, _output_dir(tmp_path / "third", "sha256:" + "1" * 64)])
    assert str(refused.value) == (
        f"--archive {other} has sha256 {sha256_file(other)}, and the runs in {mine}, {tmp_path / 'third'} were built "
        f"from {', '.join(sorted([declared, 'sha256:' + '1' * 64]))}: pass the archive their fixture was built from (a "
        "collection's own zip lies beside its contract)")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(PathArgumentError, match=r"were built from no archive \(no aggregate there\): pass"):
        place_archive_option(other, [empty])
    with pytest.raises(PathArgumentError, match=r"--archive .*absent\.zip does not exist; pass the dataset's zip$"):
        place_archive_option(tmp_path / "absent.zip", [mine])
    place_archive_option(None, [mine])  # nothing named, nothing placed


def test_an_unreadable_aggregate_is_passed_over_and_the_others_read(tmp_path: Path) -> None:
    archive = tmp_path / "mine.zip"
    archive.write_bytes(b"the collection")
    mine = _output_dir(tmp_path / "mine", sha256_file(archive))
    (mine / "a-first-hybrid-calibration.aggregate.json").write_text("not JSON", encoding="utf-8")  # sorted first
    place_archive_option(archive, [mine])  # the validator names what is wrong with the unreadable one
    assert json.loads((mine / LOCATIONS_NAME).read_text(encoding="utf-8"))[ARCHIVES] == {
        sha256_file(archive): str(archive)}


@pytest.mark.parametrize("command", [["compare", "--split", "heldout"], ["report", "--out", "R.html"],
                                     ["export"], ["bundle", "--bundle-dir", "B"]])
def test_every_validating_command_refuses_a_zip_its_runs_were_not_built_from(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _output_dir(tmp_path / "out", "sha256:" + "0" * 64)
    other = tmp_path / "other.zip"
    other.write_bytes(b"another collection")
    arguments = [command[0], "--output-dir", str(out), *[str(tmp_path / a) if a in ("R.html", "B") else a
                                                         for a in command[1:]], "--archive", str(other)]
    assert cli.main(arguments) == 2
    assert f"--archive {other} has sha256" in capsys.readouterr().err


def _collection(directory: Path, qrels: bytes | None = None) -> Path:
    for name, data in tiny_members().items():
        path = directory / name.removeprefix("tiny/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(qrels if qrels is not None and name.endswith(".tsv") else data)
    return directory


def test_a_refused_collection_leaves_no_zip_and_an_earlier_one_in_place(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "contracts" / "mine.json"
    good = _collection(tmp_path / "good")
    assert cli.main(["contract", "--dataset-dir", str(good), "--name", "mine", "--out", str(out)]) == 0
    packed = (tmp_path / "contracts" / "mine.zip").read_bytes()
    twice = tiny_members()["tiny/qrels/test.tsv"] + b"q1\td01\t1\nq1\td01\t1\n"
    bad = _collection(tmp_path / "bad", twice)
    assert cli.main(["contract", "--dataset-dir", str(bad), "--name", "mine", "--out", str(out)]) == 2
    assert "twice" in capsys.readouterr().err
    assert (tmp_path / "contracts" / "mine.zip").read_bytes() == packed  # the earlier zip, untouched
    assert sorted(p.name for p in (tmp_path / "contracts").iterdir()) == ["mine.json", "mine.zip"]
    fresh = tmp_path / "fresh" / "mine.json"
    assert cli.main(["contract", "--dataset-dir", str(bad), "--name", "mine", "--out", str(fresh)]) == 2
    assert not fresh.parent.exists()  # nothing left, not even the folder the contract was to go in

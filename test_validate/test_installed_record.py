"""The validator's own reading of an installed distribution's RECORD, on a distribution laid out here: each file held
to its sha256 entry (a changed or missing one named), an entry of another algorithm or none left out of the identity,
and the installer's own files never part of it. The same reading on a real wheel installed into a scratch venv is in
test_eval/test_installed_distribution.py."""

import base64
import hashlib
from importlib import metadata
from pathlib import Path

from harness.validator.core import installed
from harness.validator.core.digests import sha256_canonical

FILES = {"harness/__init__.py": b"", "harness/modes.py": b"MODES = ()\n", "harness/data.json": b"{}\n"}


def _entry(data: bytes, algorithm: str = "sha256") -> str:
    digest = hashlib.new(algorithm, data).digest()
    return f"{algorithm}=" + base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _installed(site: Path, rows: list[str]) -> metadata.Distribution:
    for name, data in FILES.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(data)
    info = site / "scifact_harness-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: scifact-harness\nVersion: 0.1.0\n", encoding="utf-8")
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "RECORD").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return metadata.PathDistribution(info)


def _rows() -> list[str]:
    installer = "scifact_harness-0.1.0.dist-info/INSTALLER"
    return [*(f"{name},{_entry(data)},{len(data)}" for name, data in FILES.items()),
            f"{installer},{_entry(b'pip' + bytes([10]))},4", "scifact_harness-0.1.0.dist-info/RECORD,,"]


def test_every_recorded_file_is_hashed_and_the_identity_is_the_records(tmp_path: Path) -> None:
    found = installed._checked(_installed(tmp_path, _rows()))
    assert (found.name, found.version, found.changed) == ("scifact-harness", "0.1.0", [])
    expected = {name: "sha256:" + hashlib.sha256(data).hexdigest() for name, data in FILES.items()}
    assert found.files_sha256 == sha256_canonical(expected)  # the installer's files left out


def test_a_changed_and_a_missing_file_are_named(tmp_path: Path) -> None:
    distribution = _installed(tmp_path, _rows())
    (tmp_path / "harness/modes.py").write_bytes(b"MODES = ('x',)\n")
    (tmp_path / "harness/data.json").unlink()
    found = installed._checked(distribution)
    assert found.changed == ["harness/data.json (missing)", "harness/modes.py"]


def test_an_entry_of_another_algorithm_is_neither_held_nor_part_of_the_identity(tmp_path: Path) -> None:
    rows = [row if not row.startswith("harness/modes.py,") else
            f"harness/modes.py,{_entry(FILES['harness/modes.py'], 'sha512')},11" for row in _rows()]
    found = installed._checked(_installed(tmp_path, rows))
    assert found.changed == []
    expected = {name: "sha256:" + hashlib.sha256(data).hexdigest() for name, data in FILES.items()
                if name != "harness/modes.py"}
    assert found.files_sha256 == sha256_canonical(expected)


def test_a_record_entry_is_read_as_its_algorithm_says() -> None:
    assert installed._from_record(_entry(b"x")) == "sha256:" + hashlib.sha256(b"x").hexdigest()
    assert installed._from_record(_entry(b"x", "sha512")) is None
    assert installed._from_record("sha256=") is None and installed._from_record("") is None

"""The harness wheel a bundle carries: the wheel the installer recorded when it is still there with the bytes it
hashed, else the installed files packed again (each held to RECORD, a changed one refusing), and either way held to
the files digest the receipts bind; on distributions made here, the way an install lays them out."""

import base64
import hashlib
import io
import json
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from harness.publish.environment.harness_wheel import (
    _recorded_wheel,
    _repacked,
    stage_harness_wheel,
    wheel_files_sha256,
    wheel_name,
)
from harness.publish.environment.refused import EnvironmentRefused
from harness.record_files import files_sha256

FILES = {"toy/__init__.py": b"VALUE = 1\n", "toy/data.json": b"{}\n"}


def _entry(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _installed(site: Path, *, name: str = "toy-pkg", tags: tuple[str, ...] = ("py3-none-any",),
               direct_url: str | None = None, record: bool = True) -> metadata.Distribution:
    """A distribution laid out as an installer leaves it: its files, METADATA, WHEEL, RECORD (with the installer's
    own entries) and, when given, direct_url.json."""
    info = f"{name.replace('-', '_')}-1.0.dist-info"
    written = {**FILES, f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
               f"{info}/WHEEL": ("Wheel-Version: 1.0\n" + "".join(f"Tag: {t}\n" for t in tags)).encode()}
    for path, data in written.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    lines = [_entry(path, data) for path, data in written.items()]
    if direct_url is not None:
        (site / info / "direct_url.json").write_text(direct_url, encoding="utf-8")
        lines.append(_entry(f"{info}/direct_url.json", direct_url.encode()))
    (site / info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    lines += [_entry(f"{info}/INSTALLER", b"pip\n"), "../../../bin/toy,sha256=AAAA,4", f"{info}/RECORD,,",
              "toy/__pycache__/__init__.cpython-311.pyc,,"]
    if record:
        (site / info / "RECORD").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return metadata.PathDistribution(site / info)


def test_the_installed_files_pack_again_into_a_wheel_of_the_same_files(tmp_path: Path) -> None:
    toy = _installed(tmp_path / "site")
    data = _repacked(toy)
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        names = wheel.namelist()
        assert {name: wheel.read(name) for name in FILES} == FILES
        record = wheel.read("toy_pkg-1.0.dist-info/RECORD").decode()
    assert "INSTALLER" not in " ".join(names) and not any(n.startswith("../") or ".pyc" in n for n in names)
    assert record.splitlines()[-1] == "toy_pkg-1.0.dist-info/RECORD,,"
    assert wheel_files_sha256(data) == files_sha256(toy.read_text("RECORD") or "")  # the install's identity
    assert wheel_name(toy) == "toy_pkg-1.0-py3-none-any.whl"


def test_a_file_changed_since_install_or_no_record_refuses_the_wheel(tmp_path: Path) -> None:
    toy = _installed(tmp_path / "site")
    (tmp_path / "site" / "toy" / "data.json").write_bytes(b"{\"edited\": true}\n")
    with pytest.raises(EnvironmentRefused) as refused:
        _repacked(toy)
    assert str(refused.value) == ("the installed harness's file toy/data.json differs from its RECORD: reinstall the "
                                  "wheel (pip install --force-reinstall) and bundle from runs it made")
    with pytest.raises(EnvironmentRefused, match=r"^the installed harness has no RECORD: install it from a wheel "
                                                 r"\(pip install, not editable\)$"):
        _repacked(_installed(tmp_path / "bare", record=False))


@pytest.mark.parametrize(("tags", "name"), [(("cp311-cp311-linux_x86_64",), "toy_pkg-1.0-cp311-cp311-linux_x86_64.whl"),
                                            (("py2-none-any", "py3-none-any"), "toy_pkg-1.0-py3-none-any.whl"),
                                            ((), "toy_pkg-1.0-py3-none-any.whl")])
def test_the_wheels_name_carries_its_one_tag(tmp_path: Path, tags: tuple[str, ...], name: str) -> None:
    assert wheel_name(_installed(tmp_path / "site", tags=tags)) == name


def _recorded(tmp_path: Path, data: bytes, url: str | None = None, sha: str | None = None) -> dict[str, object]:
    wheel = tmp_path / "dist" / "toy_pkg-1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    wheel.write_bytes(data)
    hashes = {"sha256": sha or hashlib.sha256(data).hexdigest()}
    return {"url": url or wheel.as_uri(), "archive_info": {"hashes": hashes}}


def test_the_wheel_the_installer_recorded_is_carried_when_it_still_holds_those_bytes(tmp_path: Path) -> None:
    repacked = _repacked(_installed(tmp_path / "plain"))
    stored = io.BytesIO()  # the same files, other bytes: stored, not deflated
    with zipfile.ZipFile(io.BytesIO(repacked)) as packed, zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as wheel:
        for name in packed.namelist():
            wheel.writestr(name, packed.read(name))
    original = stored.getvalue()
    assert original != repacked and wheel_files_sha256(original) == wheel_files_sha256(repacked)
    direct = _recorded(tmp_path, original)
    toy = _installed(tmp_path / "site", direct_url=json.dumps(direct))
    assert _recorded_wheel(toy) == original
    staged = stage_harness_wheel(tmp_path / "staging", toy, wheel_files_sha256(repacked))
    assert staged == tmp_path / "staging" / "environment" / "toy_pkg-1.0-py3-none-any.whl"
    assert staged.read_bytes() == original


@pytest.mark.parametrize("broken", ["other bytes", "https", "not a wheel", "absent", "not JSON", "no hashes", "none"])
def test_a_recorded_wheel_that_is_not_there_as_hashed_is_never_carried(tmp_path: Path, broken: str) -> None:
    data = _repacked(_installed(tmp_path / "plain"))
    direct: object = _recorded(tmp_path, data)
    assert isinstance(direct, dict)
    if broken == "other bytes":
        direct = _recorded(tmp_path, data, sha="0" * 64)
    elif broken == "https":
        direct["url"] = "https://example.org/toy_pkg-1.0-py3-none-any.whl"
    elif broken == "not a wheel":
        (tmp_path / "dist" / "toy.tar.gz").write_bytes(data)
        direct["url"] = (tmp_path / "dist" / "toy.tar.gz").as_uri()
    elif broken == "absent":
        (tmp_path / "dist" / "toy_pkg-1.0-py3-none-any.whl").unlink()
    elif broken == "no hashes":
        direct = {"url": direct["url"], "dir_info": {}}
    text = {"not JSON": "not JSON", "none": None}.get(broken, json.dumps(direct))
    toy = _installed(tmp_path / "site", direct_url=text)
    assert _recorded_wheel(toy) is None
    staged = stage_harness_wheel(tmp_path / "staging", toy, wheel_files_sha256(data))
    assert staged.read_bytes() == _repacked(toy)  # packed again instead


def test_a_wheel_of_other_files_than_the_receipts_bind_is_refused(tmp_path: Path) -> None:
    toy = _installed(tmp_path / "site")
    with pytest.raises(EnvironmentRefused) as refused:
        stage_harness_wheel(tmp_path / "staging", toy, "sha256:" + "0" * 64)
    assert str(refused.value) == (f"the installed harness's files ({wheel_files_sha256(_repacked(toy))}) are not the "
                                  f"ones the receipts bind (sha256:{'0' * 64}): bundle with the harness that made the "
                                  "runs installed")
    assert not (tmp_path / "staging").exists()

"""Why a stored verdict or a kept re-embedding is not believed, decided on documents made here and sealed with a key
of the test's own: another environment, other options, a changed freeze record, a record filed under another
material; and the key file itself, refused when others may read it or it is short. (test_stored_verdicts.py runs the
same rules through whole validations.)"""

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.validator.verdicts import identity, re_embedding
from harness.validator.verdicts.inputs import changed, role_digests
from harness.validator.verdicts.key import KEY_VARIABLE, KeyUnusable, load_key, seal
from harness.validator.verdicts.store import SCHEMA, _refusal

KEY = bytes(range(32))
OPTIONS = {"embedding": "sample", "archive": None}
NOTHING_READ: dict[str, Any] = {"roles": {}, "files": {}, "journals": {}, "listings": {}}


def _verdict(**change: Any) -> dict[str, Any]:
    document = {"schema": SCHEMA, "validator": identity.validator_identity(), "options": OPTIONS, "read": NOTHING_READ,
                **change}
    document["seal"] = seal(document, KEY)
    return document


def test_a_verdict_of_today_is_believed() -> None:
    assert _refusal(_verdict(), KEY, OPTIONS, {}) is None


def test_a_verdict_from_another_environment_is_not_believed() -> None:
    other = {**identity.validator_identity(), "environment_sha256": "sha256:" + "0" * 64}
    assert _refusal(_verdict(validator=other), KEY, OPTIONS, {}) == (
        "the interpreter or an installed distribution changed since")


@pytest.mark.parametrize("asked", [{"embedding": "full", "archive": None}, {"embedding": "sample", "archive": "a.zip"}])
def test_a_verdict_of_other_options_is_not_believed(asked: dict[str, Any]) -> None:
    """A sample's verdict does not answer a full re-embedding; any other option differing is another validation."""
    assert _refusal(_verdict(), KEY, asked, {}) == "it was validated with other options"


def test_a_changed_freeze_record_is_named(tmp_path: Path) -> None:
    roles: dict[str, Path | None] = {"aggregate": tmp_path / "a.json", "freeze": tmp_path / "freeze.json"}
    for path in (tmp_path / "a.json", tmp_path / "freeze.json"):
        path.write_text("{}\n", encoding="utf-8")
    stored = {**NOTHING_READ, "roles": role_digests(roles)}
    assert list(changed(stored, roles)) == []
    (tmp_path / "freeze.json").write_text('{"modes": []}\n', encoding="utf-8")
    assert list(changed(stored, roles)) == ["the freeze"]


@pytest.fixture
def key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state" / "validator-key"
    monkeypatch.setenv(KEY_VARIABLE, str(path))
    return path


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620])
def test_a_key_others_may_read_or_write_is_not_used(key_file: Path, mode: int) -> None:
    load_key()
    os.chmod(key_file, mode)
    with pytest.raises(KeyUnusable, match="open to others"):
        load_key()


def test_a_key_shorter_than_32_bytes_is_not_used(key_file: Path) -> None:
    key_file.parent.mkdir(parents=True)
    key_file.write_text("ab" * 31 + "\n", encoding="ascii")
    os.chmod(key_file, 0o600)
    with pytest.raises(KeyUnusable, match="fewer than 32 bytes"):
        load_key()


def test_a_re_embedding_filed_under_another_material_is_not_recalled(key_file: Path) -> None:
    mine, other = (re_embedding.material("full", f"sha256:{name}", "sha256:v", {"model": "m"}) for name in "ab")
    _, problem = re_embedding.remember(mine, {"passed": True})
    assert problem is None and re_embedding.recall(mine) is not None
    shutil.copy(re_embedding._path(mine), re_embedding._path(other))
    assert re_embedding.recall(other) is None


def test_the_validators_source_digest_covers_its_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pins are JSON beside the code: a pin changed is another validator, whose verdicts are not reused."""
    validator = tmp_path / "harness" / "validator"
    (validator / "dataset" / "pins").mkdir(parents=True)
    (tmp_path / "harness" / "schemas").mkdir()
    (validator / "check.py").write_text("X = 1\n", encoding="utf-8")
    pins = validator / "dataset" / "pins" / "tiny.json"
    pins.write_text('{"qrels": {}}\n', encoding="utf-8")
    monkeypatch.setattr(identity, "VALIDATOR_DIR", validator)
    monkeypatch.setattr(identity, "SCHEMA_DIR", tmp_path / "harness" / "schemas")
    before = identity.source_digest.__wrapped__()
    pins.write_text('{"qrels": {"q1": {"d1": 1}}}\n', encoding="utf-8")
    assert identity.source_digest.__wrapped__() != before

"""`python -m harness build`: the SciFact contract is the only one, and errors exit non-zero with a message."""

import json
import subprocess
import sys
from pathlib import Path

from fixtures.archives import tiny_members, write_zip
from harness.corpus.contract import scifact_contract

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})


def _tiny_as_scifact(path: Path) -> Path:
    return write_zip(path, {name.replace("tiny/", "scifact/"): data for name, data in tiny_members().items()})


def test_the_frozen_scifact_contract() -> None:
    contract = scifact_contract()
    assert (contract.documents, contract.test_queries, contract.test_qrel_pairs) == (5183, 300, 339)
    assert (contract.semantic_text_max_code_points, contract.document_prefix, contract.query_prefix) == (
        700, "search_document: ", "search_query: ")
    assert (contract.namespace, contract.top_k, contract.calibration_count) == ("beir-scifact", 10, 100)
    assert len(contract.pinned_payload_sha256) == 4


def test_a_contract_of_ones_own_cannot_stand_in_for_a_shipped_dataset(tmp_path: Path) -> None:
    """A contract file naming SciFact (with other pins) is refused: a shipped dataset is only its shipped contract."""
    forged = json.loads((ROOT / "harness" / "contracts" / "scifact.json").read_text(encoding="utf-8"))
    forged["pinned_content_sha256"]["qrels"] = "sha256:" + "0" * 64
    (tmp_path / "forged.json").write_text(json.dumps(forged), encoding="utf-8")
    result = _cli("build", "--contract", str(tmp_path / "forged.json"), "--out", str(tmp_path / "f.json"),
                  "--work-dir", str(tmp_path))
    assert result.returncode == 2 and "goes by the name 'beir-scifact' of the shipped dataset SciFact" in result.stderr
    assert "for SciFact itself, use --dataset scifact" in result.stderr
    assert not (tmp_path / "f.json").exists()


def test_a_foreign_archive_fails_on_pins_then_on_shape(tmp_path: Path) -> None:
    archive = _tiny_as_scifact(tmp_path / "scifact.zip")
    pinned = _cli("build", "--archive", str(archive), "--out", str(tmp_path / "f.json"), "--work-dir", str(tmp_path))
    assert pinned.returncode == 2
    assert "payload member 'scifact/corpus.jsonl' has sha256" in pinned.stderr
    unpinned = _cli("build", "--archive", str(archive), "--out", str(tmp_path / "f.json"),
                    "--work-dir", str(tmp_path), "--allow-unpinned")
    assert unpinned.returncode == 2
    assert "documents in corpus.jsonl: the contract requires 5183, the archive has 10" in unpinned.stderr
    assert not (tmp_path / "f.json").exists()


def test_missing_archive_and_unknown_embedder_are_reported(tmp_path: Path) -> None:
    missing = _cli("build", "--archive", str(tmp_path / "nope.zip"), "--out", "f.json", "--work-dir", str(tmp_path))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    unknown = _cli("build", "--embedder", "magic", "--out", "f.json", "--work-dir", str(tmp_path))
    assert unknown.returncode == 2 and "invalid choice: 'magic'" in unknown.stderr

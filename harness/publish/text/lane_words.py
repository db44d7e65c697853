"""How each lane (and the fusion) of a run was verified, in words that follow the check that ran: recomputed
independently by the validator's own code, replayed through the live system (a system of its own's engine, asked
again), or not verified; a run file's rankings, read again from its bytes. Each names its check, so a reader finds the
line it rests on."""

from typing import Any

LANES = ("lexical", "dense", "fusion")
RUN_FILE_CHECK = "ranking.run_file"  # the validator's check of a run file's rankings, read again from its bytes
THROUGH = "replayed through the system"  # the validator's words for a lane checked by asking the live system again


def _check(report: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((c for c in report.get("checks", []) if c["name"] == name), None)


def lane_words(report: dict[str, Any]) -> dict[str, str]:
    """Lane -> words, for the lanes the run's validation replayed (its `replay.LANE` checks), from a validator
    report as `Report.to_dict` writes it."""
    noted = report.get("notes", {}).get("lane_verification", {})
    words: dict[str, str] = {}
    read = _check(report, RUN_FILE_CHECK)
    if read is not None:  # a run file's: no lane, its rankings read again from the file
        status = "read again" if read["status"] == "pass" else f"not as the rows say ({read['status']})"
        words["rankings"] = (f"{status} by the validator's own reader from the run file the receipts bind, every "
                             "metric recomputed; made outside the harness, so attested, not replayed "
                             f"({RUN_FILE_CHECK})")
    for lane in LANES:
        check = _check(report, f"replay.{lane}")
        if check is None:
            if lane in noted:
                words[lane] = f"{noted[lane]} (no replay.{lane} check)"
            continue
        name = f"replay.{lane}"
        if check["status"] == "fail":
            words[lane] = f"{noted.get(lane, 'disagrees')} ({name} failed)"
        elif check["status"] != "pass":
            words[lane] = f"not verified ({name})"
        elif THROUGH not in check["detail"]:
            source = str(noted.get(lane, "")).removeprefix("recomputed independently")
            words[lane] = f"recomputed independently{source or ' by the validator'} ({name})"
        elif lane == "fusion" and (fused := _check(report, "rows.fusion")) and fused["status"] == "pass":
            words[lane] = ("every fused score recomputed independently from the lanes' evidence (rows.fusion); the "
                           f"fused ranking replayed through the live system, not recomputed ({name})")
        else:
            words[lane] = f"replayed through the live system, not independently recomputed ({name})"
    return words

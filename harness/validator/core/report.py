"""Check outcomes, attestations and the eligibility verdict.

A check passes, fails, or is not verified (it could not be run here). An attestation is not a check: it
names something the receipt states that no one can re-establish after the run (a latency, the machine,
the run ledger's history); the report and the verdict say so in words.
"""

from dataclasses import asdict, dataclass, field
from typing import Any

from .catalog import ATTESTATIONS, CHECKS

PASS, FAIL, NOT_VERIFIED, ATTESTED = "pass", "fail", "not verified", "attested"


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str
    expected: Any = None
    found: Any = None

    def line(self) -> str:
        text = f"{self.status.upper():<12} {self.name}: {self.detail}"
        if self.status == FAIL and (self.expected is not None or self.found is not None):
            text += f" (expected {_short(self.expected)}, found {_short(self.found)})"
        return text


def _short(value: Any, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass
class Report:
    subject: str
    checks: list[Check] = field(default_factory=list)
    attestations: list[Check] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)  # what was done, beside the verdicts (e.g. sample seeds)
    # an input that is malformed or not of its kind (the file, the problem, the fix): no verdict is stored for it, and
    # the command line exits 2 (input you can fix), not 1
    input_problem: str | None = field(default=None, compare=False)

    def _add(self, check: Check) -> None:
        if check.name not in CHECKS:
            raise ValueError(f"check {check.name!r} is not in the validator's catalog")
        self.checks.append(check)

    def attest(self, name: str, detail: str) -> None:
        if name not in ATTESTATIONS:
            raise ValueError(f"attestation {name!r} is not in the validator's catalog")
        self.attestations.append(Check(name, ATTESTED, detail))

    def lines(self) -> list[str]:
        return [check.line() for check in (*self.checks, *self.attestations)] + self._note_lines() + [self.verdict()]

    def _note_lines(self) -> list[str]:
        """What the checks were held to, in words: the dataset by the validator's pins, the archive's use; and the
        failed queries, by whose failure each row records."""
        dataset = self.notes.get("dataset")
        lines = [f"{'DATASET':<12} {dataset['title']}: {dataset['scope']}"] if dataset else []
        lines += [f"{'ARCHIVE':<12} {self.notes['archive']}"] if "archive" in self.notes else []
        lines += [f"{'FAILURES':<12} {failures_text(self.notes['failures'])}"] if "failures" in self.notes else []
        return lines + ([f"{'STORED':<12} {stored_text(self.notes['stored_verdict'])}"]
                        if "stored_verdict" in self.notes else [])

    def ok(self, name: str, detail: str) -> None:
        self._add(Check(name, PASS, detail))

    def fail(self, name: str, detail: str, expected: Any = None, found: Any = None) -> None:
        self._add(Check(name, FAIL, detail, expected, found))

    def unverified(self, name: str, detail: str) -> None:
        self._add(Check(name, NOT_VERIFIED, detail))

    def expect(self, name: str, condition: bool, detail: str, expected: Any = None, found: Any = None) -> bool:
        if condition:
            self.ok(name, detail)
        else:
            self.fail(name, detail, expected, found)
        return condition

    def equal(self, name: str, expected: Any, found: Any, detail: str) -> bool:
        return self.expect(name, expected == found, detail, expected, found)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if c.status == FAIL]

    @property
    def not_verified(self) -> list[Check]:
        return [c for c in self.checks if c.status == NOT_VERIFIED]

    @property
    def eligible(self) -> bool:
        return bool(self.checks) and not self.failed and not self.not_verified

    def verdict(self) -> str:
        if self.eligible:
            attested = ", ".join(c.name for c in self.attestations)
            return (f"ELIGIBLE for a claim{self._kind()}: all {len(self.checks)} checks passed"
                    + (f"; attested, not provable here: {attested}" if attested else "") + self._through())
        return (f"NOT ELIGIBLE for a claim: {len(self.failed)} failed, {len(self.not_verified)} not verified, "
                f"{len(self.checks) - len(self.failed) - len(self.not_verified)} passed")

    def _kind(self) -> str:
        """The kind of claim when it is not a replayed system's: a run file's rankings are attested."""
        ranking = self.notes.get("ranking")
        if not ranking:
            return ""
        producers = " and ".join(repr(name) for name in ranking["producers"])
        return (f" of ranking attested (the rankings of {producers} were made outside the harness and read from "
                f"{'its run file' if len(ranking['producers']) == 1 else 'their run files'}, not replayed)")

    def _through(self) -> str:
        """The lanes only replayed through the live system (`replay.through_system`), said on the verdict's line."""
        lanes = [name for name, status in self.notes.get("lane_verification", {}).items()
                 if str(status).startswith("replayed through")]
        if not lanes or not any(c.name == "replay.through_system" for c in self.attestations):
            return ""
        return (f"; the {' and '.join(lanes)} lane{'s were' if len(lanes) > 1 else ' was'} replayed through the live "
                "system, not recomputed")

    def exit_code(self) -> int:
        """0 eligible, 1 a check failed, 7 nothing failed but something was not verified (docs/exit-codes.md)."""
        return 0 if self.eligible else (1 if self.failed else 7)

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "eligible": self.eligible, "verdict": self.verdict(),
                "notes": self.notes, "checks": [asdict(c) for c in self.checks],
                "attested": [asdict(c) for c in self.attestations]}


def report_from_dict(document: dict[str, Any]) -> Report:
    """A report as `to_dict` wrote it (a stored verdict)."""
    return Report(str(document["subject"]), [Check(**c) for c in document["checks"]],
                  [Check(**c) for c in document["attested"]], dict(document["notes"]))


def stored_text(stored: dict[str, Any]) -> str:
    """Whether this verdict was reused or made now, and why, in words."""
    if stored["reused"]:
        return (f"the verdict of {stored['validated_at']} reused: the same bytes read, the same validator "
                f"({stored['validator']}) and options, sealed with this machine's key ({stored['file']})")
    where = f"stored in {stored['file']}" if stored["file"] else f"not stored ({stored.get('not_stored', 'no key')})"
    return f"validated now ({stored['why']}); {where}"


def failures_text(failures: dict[str, Any]) -> str:
    """The failed queries in words, each counted as the run's rows say whose failure it is."""
    parts = [f"{failures['system']} by the system under test (its search raised, or its answer broke a rule of "
             "search: fix the system)" if failures["system"] else "",
             f"{failures['harness']} by the harness (a fault of the harness, not of the system: report it)"
             if failures["harness"] else "",
             f"{failures['unstated']} whose rows do not say by whom" if failures["unstated"] else ""]
    first = failures["first"]
    return (f"{failures['count']} of {failures['rows']} queries failed, counted as zero in every mean: "
            f"{'; '.join(p for p in parts if p)}; the first, query {first['query_id']}: {first['error']}")

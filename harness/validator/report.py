"""Check outcomes and the eligibility verdict."""

from dataclasses import asdict, dataclass, field
from typing import Any

PASS, FAIL, NOT_VERIFIED = "pass", "fail", "not verified"


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
    notes: dict[str, Any] = field(default_factory=dict)  # what was done, beside the verdicts (e.g. sample seeds)

    def ok(self, name: str, detail: str) -> None:
        self.checks.append(Check(name, PASS, detail))

    def fail(self, name: str, detail: str, expected: Any = None, found: Any = None) -> None:
        self.checks.append(Check(name, FAIL, detail, expected, found))

    def unverified(self, name: str, detail: str) -> None:
        self.checks.append(Check(name, NOT_VERIFIED, detail))

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
            return f"ELIGIBLE for a claim: all {len(self.checks)} checks passed"
        return (f"NOT ELIGIBLE for a claim: {len(self.failed)} failed, {len(self.not_verified)} not verified, "
                f"{len(self.checks) - len(self.failed) - len(self.not_verified)} passed")

    def exit_code(self) -> int:
        return 0 if self.eligible else (1 if self.failed else 3)

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "eligible": self.eligible, "verdict": self.verdict(),
                "notes": self.notes, "checks": [asdict(c) for c in self.checks]}

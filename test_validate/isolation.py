"""A coverage case proves its check in isolation: the named check fails, and every other check reports what it
reports on the clean run, except those the case declares.

A case declares, beside itself (`Expected`):

- `also`: checks the same violation necessarily fails too, with the reason when it is not obvious. The set is
  exact: a declared check that no longer fails is reported as well, so the set never outgrows the violation;
- `unreached`: checks the validator does not run once the named check has failed (they read what it refused);
- `stops`: the validator ends at the named check's stage, so only a leading part of the clean run's checks runs.

Everything else is held to the clean report of the same aggregate (or comparison), validated with the same options:
a check that passes there must pass here, a check the clean run does not report must not appear, and a check
added to the validator later is held to the same rule in every case without anyone listing it. `GIT_CHECKS` are
left out: the receipts record the working tree's real git state.
"""

from dataclasses import dataclass

from harness.validator.core.catalog import CHECKS
from harness.validator.core.report import FAIL, Report

from .support import GIT_CHECKS, describe


@dataclass(frozen=True)
class Expected:
    also: frozenset[str] = frozenset()
    unreached: frozenset[str] = frozenset()
    stops: bool = False
    why: str = ""

    def __post_init__(self) -> None:
        unknown = sorted((self.also | self.unreached) - set(CHECKS))
        assert not unknown, f"not checks of the validator's catalog: {unknown}"
        assert not (self.stops and self.unreached), "a case that stops the validator lists nothing as unreached"


def _statuses(report: Report) -> dict[str, str]:
    names = [check.name for check in report.checks]
    assert len(names) == len(set(names)), f"a check reported twice:\n{describe(report)}"
    return {check.name: check.status for check in report.checks}


def assert_isolated(name: str, expected: Expected, report: Report, clean: Report) -> None:
    """`name` fails, and the report differs from `clean` only as `expected` declares."""
    found, baseline = _statuses(report), _statuses(clean)
    order = [check.name for check in clean.checks]
    reason = f" ({expected.why})" if expected.why else ""
    text = f"case {name}{reason}:\n{describe(report)}"
    assert not {n for n, s in baseline.items() if s == FAIL} - GIT_CHECKS, f"the clean run fails:\n{describe(clean)}"
    assert found.get(name) == FAIL, f"{name} did not fail; {text}"
    failing = {n for n, s in found.items() if s == FAIL} - GIT_CHECKS - {name}
    assert failing == expected.also, (f"other failures {sorted(failing)}, declared {sorted(expected.also)}; "
                                      f"tighten the violation or declare them with the reason; {text}")
    absent = set(baseline) - set(found) - GIT_CHECKS  # a clean tree's source.clean is attested, not a check
    if expected.stops:
        ran = [n for n in order if n in found]
        assert ran == order[:len(ran)], f"the validator skipped checks it ran before others; {text}"
    else:
        assert absent == expected.unreached - GIT_CHECKS, (f"checks not run {sorted(absent)}, declared unreached "
                                              f"{sorted(expected.unreached)}; {text}")
    new = set(found) - set(baseline) - {name} - expected.also
    assert not new, f"checks the clean run does not report: {sorted(new)}; {text}"
    changed = {n: (baseline[n], found[n]) for n in set(found) & set(baseline) - {name} - expected.also - GIT_CHECKS
               if found[n] != baseline[n]}
    assert not changed, f"checks whose status moved from the clean run's: {changed}; {text}"

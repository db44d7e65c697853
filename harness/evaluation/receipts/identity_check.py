"""A system's own strings (name, version, spec, engine, package, declarations, options, `attested()`), checked
against the receipts' schema before they are written, so that a mistake is named for the system that made it; its
declarations first, each field named with what it takes (harness/systems/declarations.py).

The schemas hold each of them to one printable line of bounded length: a receipt is data, and a newline or a
control character in a name would otherwise travel into every document rendered from it.
"""

from typing import Any

from jsonschema.exceptions import best_match

from harness.errors import HarnessError
from harness.schema_check import validate, validator
from harness.systems.declarations import declarations_problem
from harness.systems.names import RUN_FILE
from harness.systems.protocol import SystemIdentity

RULE = ("every name, version, spec, engine, package, lexical declaration, option and attested() key is one line of "
        "printable text of 1 to 200 characters, and every option value and attested() string at most 1000 (no "
        "control, line-separator or direction-override character)")


class SystemStringsError(HarnessError):
    """A system states a name, version, option or attested value the receipts cannot carry."""


class SystemDeclarationError(SystemStringsError):
    """A system declares what the harness cannot read (docs/systems.md): the field and what it takes are named."""


def _problem(instance: Any, definition: str) -> str | None:
    error = best_match(validator("aggregate", definition).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(top level)"
    if error.validator != "pattern":
        return f"at {where}: {error.message}"
    what = "the key" if "propertyNames" in error.absolute_schema_path else "the value"
    return f"{what} {error.instance!r} at {where} is not one line of printable text within the length bound"


def _refuse(identity: SystemIdentity, part: str, problem: str) -> SystemStringsError:
    return SystemStringsError(f"system {identity.name!r} (--system {identity.spec!r}) states {part} the receipts "
                              f"cannot carry: {problem}. Fix the system: {RULE}")


def check_identity(identity: SystemIdentity) -> None:
    """Before any query runs: the identity the receipts and the freeze will record, its declarations first."""
    own = identity.declarations if identity.spec != RUN_FILE else {  # a run file's ranking is the harness's word
        key: value for key, value in identity.declarations.items() if key != "ranking"}
    declared = declarations_problem(own)
    if declared is not None:
        raise SystemDeclarationError(f"system {identity.name!r} (--system {identity.spec!r}) declares what the "
                                     f"harness cannot read: {declared}. Fix its declarations (docs/systems.md)")
    problem = _problem(identity.record(), "systemIdentity")
    if problem is not None:
        raise _refuse(identity, "an identity", problem)


def check_receipt(aggregate: dict[str, Any], identity: SystemIdentity) -> None:
    """The aggregate against its schema; the system's own parts first, so that their mistakes name the system."""
    store = aggregate["receipt"]["store"]
    if "attested" in store:
        problem = _problem(store, "systemStore")
        if problem is not None:
            raise _refuse(identity, "a store receipt (what it attests)", problem)
    check_identity(identity)
    validate(aggregate, "aggregate")

"""Text profiles: how documents and queries become prompts.

`scifact-contract` is the frozen contract (700-code-point ceiling, role prefixes). `mteb-parity`
reproduces MTEB's SciFact text so that the harness's numbers can be checked against MTEB's published
ones; it is recorded in every fixture and receipt and can never stand in for the contract.
"""

from dataclasses import asdict, dataclass
from typing import Any

from harness.corpus.contract import Contract
from harness.errors import HarnessError

PROFILES = ("scifact-contract", "mteb-parity")


@dataclass(frozen=True)
class TextProfile:
    name: str
    is_contract: bool
    max_code_points: int | None  # None: no ceiling; the model's own truncation applies
    document_prefix: str
    query_prefix: str
    description: str

    def record(self) -> dict[str, Any]:
        return asdict(self)


def text_profile(name: str, contract: Contract) -> TextProfile:
    if name == "scifact-contract":
        return TextProfile(name, True, contract.semantic_text_max_code_points, contract.document_prefix,
                           contract.query_prefix, "the frozen contract: role prefixes and the code-point ceiling")
    if name == "mteb-parity":
        return TextProfile(name, False, None, "", "",
                           "MTEB's SciFact encoding: title + ' ' + text and the plain query, no role prefixes, "
                           "no code-point ceiling, the model's own token truncation; for checking the harness "
                           "against MTEB's published scores, never a contract result")
    raise HarnessError(f"unknown text profile {name!r}; choose one of {', '.join(PROFILES)}")

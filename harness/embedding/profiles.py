"""Text profiles: how documents and queries become prompts.

`scifact-contract` is the frozen contract (700-code-point ceiling, role prefixes). `model-prompts` keeps the
contract's ceiling and gives each role the embedding model's own prompt in place of the contract's prefix (e5's
"query: " and "passage: ", a BGE query instruction; a role the model has no prompt for is embedded plain), as the
model's authors meant it to be asked: a claim-bearing profile, its prompts recorded by name. `mteb-parity`
reproduces MTEB's SciFact text so that the harness's numbers can be checked against MTEB's published
ones; it is recorded in every fixture and receipt and can never stand in for the contract.
"""

from dataclasses import asdict, dataclass
from typing import Any

from harness.corpus.contract import Contract
from harness.errors import HarnessError

PROFILES = ("scifact-contract", "model-prompts", "mteb-parity")
QUERY_PROMPTS = ("query",)  # the names sentence-transformers models give their prompts, per role, in order
DOCUMENT_PROMPTS = ("document", "passage", "corpus")


@dataclass(frozen=True)
class TextProfile:
    name: str
    is_contract: bool
    max_code_points: int | None  # None: no ceiling; the model's own truncation applies
    document_prefix: str
    query_prefix: str
    description: str
    prompt_names: dict[str, str | None] | None = None  # model-prompts: the model's prompt per role (None: plain)

    def record(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if key != "prompt_names" or value is not None}


def _model_prompts(contract: Contract, prompts: dict[str, str]) -> TextProfile:
    query = next((name for name in QUERY_PROMPTS if name in prompts), None)
    if query is None:
        declared = ", ".join(sorted(prompts)) or "none"
        raise HarnessError(f"--profile model-prompts: the model declares no prompt named {QUERY_PROMPTS[0]!r} (its "
                           f"prompts: {declared}); choose scifact-contract (the contract's prefixes) or mteb-parity")
    document = next((name for name in DOCUMENT_PROMPTS if name in prompts), None)
    return TextProfile("model-prompts", True, contract.semantic_text_max_code_points,
                       prompts[document] if document is not None else "", prompts[query],
                       "the contract's code-point ceiling, each role asked with the embedding model's own prompt in "
                       "place of the contract's prefix (a role it has no prompt for: plain text)",
                       {"query": query, "document": document})


def text_profile(name: str, contract: Contract, prompts: dict[str, str] | None = None) -> TextProfile:
    """`prompts`: the embedding model's own prompts by name, which `model-prompts` asks each role with."""
    if name == "model-prompts":
        return _model_prompts(contract, prompts or {})
    if name == "scifact-contract":
        return TextProfile(name, True, contract.semantic_text_max_code_points, contract.document_prefix,
                           contract.query_prefix, "the frozen contract: role prefixes and the code-point ceiling")
    if name == "mteb-parity":
        return TextProfile(name, False, None, "", "",
                           "MTEB's SciFact encoding: title + ' ' + text and the plain query, no role prefixes, "
                           "no code-point ceiling, the model's own token truncation; for checking the harness "
                           "against MTEB's published scores, never a contract result")
    raise HarnessError(f"unknown text profile {name!r}; choose one of {', '.join(PROFILES)}")

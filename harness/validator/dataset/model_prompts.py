"""`model-prompts`: the contract's text, each role asked with the embedding model's own prompt in place of the
contract's prefix. It stands in for the pinned contract profile when its ceiling is the contract's, it is a contract
profile, and each role's prefix is the prompt the fixture's model declares under the recorded name (a role with no
prompt named: no prefix). Whether the model's files declare those prompts is held where the model is at hand
(`embedding.model_at_hand`)."""

from typing import Any


def model_prompts_problem(fixture: dict[str, Any], pinned: dict[str, Any]) -> str | None:
    """Why the fixture's profile is not the contract asked with its model's own prompts; None when it is."""
    profile = fixture["profile"]
    if profile.get("name") != "model-prompts":
        return "not the model-prompts profile"
    if profile.get("is_contract") is not True or profile.get("max_code_points") != pinned.get("max_code_points"):
        return (f"the model-prompts profile keeps the contract's ceiling ({pinned.get('max_code_points')} code points) "
                f"and is a contract profile; found {profile.get('max_code_points')}, {profile.get('is_contract')}")
    names = profile.get("prompt_names") or {}
    prompts = ((fixture["embedding"]["identity"].get("vector_shape") or {}).get("prompts")) or {}
    for role in ("query", "document"):
        name = names.get(role)
        expected = "" if name is None else prompts.get(name)
        if expected is None:
            return f"the {role} prompt {name!r} is not one the model declares ({', '.join(sorted(prompts)) or 'none'})"
        if profile.get(f"{role}_prefix") != expected:
            return (f"the {role} prefix {profile.get(f'{role}_prefix')!r} is not the model's prompt {name!r} "
                    f"({expected!r})")
    return None

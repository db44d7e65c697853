"""Ollama over its HTTP API (/api/embed), with the deterministic shortened-prompt retry.

Prompts are sent with "truncate": false, so the server refuses an over-long prompt instead of cutting
it silently. A refused prompt is retried with its semantic text cut to 500, then 300, then 120 code
points (role prefix kept); which texts needed that is recorded in the fixture.

`/api/embed` takes a list: SCIFACT_OLLAMA_INPUTS_PER_REQUEST=N (default 1) sends N prompts per request.
Nothing here proves such vectors equal those of one prompt per request (the server batches as it likes),
so N is part of the identity: another N is another embedding identity, cache and fixture, never the
default. A request the server refuses falls back to its prompts one at a time, with the retries.
"""

import os
from collections.abc import Iterator
from typing import Any

import requests

from harness.embedding.embedders.base import EmbeddingRequest, RawEmbedding
from harness.errors import USAGE, EmbeddingError

DEFAULT_MODEL = "all-minilm:latest"
DEFAULT_HOST = "http://127.0.0.1:11434"
RETRY_CODE_POINTS = (500, 300, 120)
_REJECTED_STATUSES = {400, 413, 500}


class InputsPerRequestError(EmbeddingError):
    """SCIFACT_OLLAMA_INPUTS_PER_REQUEST is not a usable count: a setting the user can fix."""

    exit_code = USAGE


def inputs_per_request_setting() -> int:
    raw = os.environ.get("SCIFACT_OLLAMA_INPUTS_PER_REQUEST")
    if raw is None:
        return 1
    if not raw.strip().isdigit() or int(raw) < 1:
        raise InputsPerRequestError(f"SCIFACT_OLLAMA_INPUTS_PER_REQUEST={raw!r} is not a whole number of at least "
                                    "1; unset it (one prompt per request, the default)")
    return int(raw)


def resolve_host(host: str | None) -> str:
    value = (host or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST).strip().rstrip("/")
    if "://" not in value:
        value = "http://" + value
    return value


def _same_model(requested: str, listed: str) -> bool:
    def full(name: str) -> str:
        return name if ":" in name else name + ":latest"

    return full(requested) == full(listed)


class OllamaEmbedder:
    backend = "ollama"

    def __init__(self, model: str = DEFAULT_MODEL, host: str | None = None, timeout: float = 120.0) -> None:
        self.model = model
        self.inputs_per_request = inputs_per_request_setting()
        self.host = resolve_host(host)
        self.timeout = (5.0, timeout)
        self._session = requests.Session()
        self._identity: dict[str, Any] | None = None

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> requests.Response:
        try:
            return self._session.request(method, self.host + path, json=body, timeout=self.timeout)
        except requests.RequestException as exc:
            raise EmbeddingError(
                f"cannot reach Ollama at {self.host} ({method} {path}: {exc}). Start `ollama serve`, "
                "or set OLLAMA_HOST to the server's address."
            ) from exc

    def _json(self, response: requests.Response, what: str) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise EmbeddingError(f"Ollama at {self.host} answered {what} with HTTP {response.status_code} "
                                 f"and a body that is not a JSON object: {response.text[:200]!r}")
        return body

    def _ok(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self._call(method, path, body)
        payload = self._json(response, f"{method} {path}")
        if response.status_code != 200:
            raise EmbeddingError(f"Ollama at {self.host}: {method} {path} failed with HTTP "
                                 f"{response.status_code}: {payload.get('error', payload)}")
        return payload

    def identity(self) -> dict[str, Any]:
        if self._identity is None:
            version = self._ok("GET", "/api/version").get("version")
            listed = self._ok("GET", "/api/tags").get("models") or []
            entry = next((m for m in listed if _same_model(self.model, m.get("name") or m.get("model", ""))), None)
            if entry is None or not entry.get("digest"):
                raise EmbeddingError(
                    f"model {self.model!r} is not on the Ollama server at {self.host} (it lists "
                    f"{sorted(m.get('name', '?') for m in listed)}). Run `ollama pull {self.model}`."
                )
            details = self._ok("POST", "/api/show", {"model": self.model}).get("details") or {}
            self._identity = {
                "backend": self.backend,
                "model": self.model,
                "digest": entry["digest"],
                "details": details,
                "server_version": version,
                "request": {"endpoint": "/api/embed", "truncate": False,
                            "inputs_per_request": self.inputs_per_request},
            }
        return self._identity

    def endpoint(self) -> str | None:
        return self.host

    def truncation_policy(self) -> dict[str, Any]:
        return {
            "model_token_limit": None,
            "model_truncation": "none: prompts are sent with truncate=false and an over-long prompt is refused",
            "prompt_retries": "a refused prompt is retried with its semantic text cut to "
            + "/".join(str(n) for n in RETRY_CODE_POINTS) + " code points, role prefix kept",
        }

    def _embed_one(self, text_id: str, prompt: str) -> tuple[list[float] | None, str]:
        """The embedding, or None and the server's reason when it refused the prompt."""
        body = {"model": self.model, "input": prompt, "truncate": False}
        response = self._call("POST", "/api/embed", body)
        payload = self._json(response, f"POST /api/embed for {text_id}")
        if response.status_code == 200:
            embeddings = payload.get("embeddings")
            if not isinstance(embeddings, list) or len(embeddings) != 1 or not isinstance(embeddings[0], list):
                raise EmbeddingError(f"Ollama at {self.host} answered /api/embed for {text_id} without exactly "
                                     f"one embedding: {str(payload)[:200]}")
            return embeddings[0], ""
        message = str(payload.get("error", payload))
        if response.status_code in _REJECTED_STATUSES and "not found" not in message:
            return None, f"HTTP {response.status_code}: {message}"
        raise EmbeddingError(f"Ollama at {self.host} failed /api/embed for {text_id} with HTTP "
                             f"{response.status_code}: {message}")

    def _embed_with_retries(self, request: EmbeddingRequest) -> RawEmbedding:
        values, refusal = self._embed_one(request.text_id, request.prompt)
        if values is not None:
            return RawEmbedding(values, None, None)
        tried = ["full"]
        for limit in (n for n in RETRY_CODE_POINTS if n < len(request.semantic_text)):
            tried.append(str(limit))
            values, refusal = self._embed_one(request.text_id, request.prefix + request.semantic_text[:limit])
            if values is not None:
                return RawEmbedding(values, limit, None)
        raise EmbeddingError(f"Ollama refused every prompt length tried for {request.text_id} "
                             f"({', '.join(tried)}; code points of semantic text): {refusal}")

    def _embed_many(self, chunk: list[EmbeddingRequest]) -> list[RawEmbedding] | None:
        """One request for several prompts; None when the server refused it (then each goes alone)."""
        body = {"model": self.model, "input": [r.prompt for r in chunk], "truncate": False}
        response = self._call("POST", "/api/embed", body)
        payload = self._json(response, f"POST /api/embed for {chunk[0].text_id} and {len(chunk) - 1} more")
        if response.status_code != 200:
            message = str(payload.get("error", payload))
            if response.status_code in _REJECTED_STATUSES and "not found" not in message:
                return None
            raise EmbeddingError(f"Ollama at {self.host} failed /api/embed for {chunk[0].text_id} and "
                                 f"{len(chunk) - 1} more with HTTP {response.status_code}: {message}")
        embeddings = payload.get("embeddings")
        if not isinstance(embeddings, list) or len(embeddings) != len(chunk) or not all(
                isinstance(e, list) for e in embeddings):
            raise EmbeddingError(f"Ollama at {self.host} answered /api/embed for {len(chunk)} inputs without "
                                 f"exactly {len(chunk)} embeddings: {str(payload)[:200]}")
        return [RawEmbedding(values, None, None) for values in embeddings]

    def embed(self, requests: list[EmbeddingRequest]) -> Iterator[RawEmbedding]:
        self.identity()
        size = self.inputs_per_request
        for start in range(0, len(requests), size):
            chunk = requests[start:start + size]
            together = self._embed_many(chunk) if len(chunk) > 1 else None
            if together is not None:
                yield from together
            else:
                for request in chunk:
                    yield self._embed_with_retries(request)

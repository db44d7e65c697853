"""`python -m benchmarks.embedding_speed [--model DIR] [--archive ZIP] [--every K] [--rounds R]`: the harness's
embedder against sentence-transformers' own `encode` on the same model and the same SciFact prompts, side by side.

Two arms, interleaved round by round so that load changes reach each alike, each embedding the same prompts (every
K-th prompt of the build, documents then queries, in the contract's profile):
- `harness`: `LocalEmbedder.embed` over the prompts in its batching order (equal token counts, unpadded, one thread
  per forward pass, as many passes at once as the process has cores), its `arrange` tokenization included;
- `encode`: `SentenceTransformer.encode(prompts, batch_size=32)`, the library's default use (length-sorted padded
  batches, torch's default threads).

Prints each round's texts/s per arm, the median of each and their ratio, with the load average. The model defaults to
the packaged all-MiniLM-L6-v2; the archive to $SCIFACT_ARCHIVE.
"""

import argparse
import os
import statistics
import time
from pathlib import Path

from harness.corpus.contract import scifact_contract
from harness.corpus.dataset import load_dataset
from harness.embedding.embedders.local import LocalEmbedder
from harness.embedding.profiles import text_profile
from harness.fixture.build import embedding_requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.embedding_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2",
                        help="a sentence-transformers directory (default: the packaged model)")
    parser.add_argument("--archive", type=Path, default=os.environ.get("SCIFACT_ARCHIVE"))
    parser.add_argument("--every", type=int, default=8, help="take every K-th prompt (default 8: 685 prompts)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.archive is None or not Path(args.archive).is_file():
        parser.error("pass --archive (the SciFact zip) or set $SCIFACT_ARCHIVE")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    contract = scifact_contract()
    dataset = load_dataset(Path(args.archive), contract)
    requests = embedding_requests(dataset, text_profile("scifact-contract", contract))[2][::args.every]
    embedder = LocalEmbedder(args.model)
    model = embedder._load()
    prompts = [request.prompt for request in requests]
    model.encode(prompts[:8], batch_size=8)  # warm: the first pass allocates

    def harness() -> None:
        list(embedder.embed(embedder.arrange(requests)))

    def encode() -> None:
        model.encode(prompts, batch_size=32, convert_to_numpy=True, show_progress_bar=False)

    rates: dict[str, list[float]] = {"harness": [], "encode": []}
    for round_number in range(args.rounds):
        for name, arm in (("harness", harness), ("encode", encode))[:: 1 if round_number % 2 == 0 else -1]:
            started = time.perf_counter()
            arm()
            rates[name].append(len(prompts) / (time.perf_counter() - started))
        print(f"round {round_number + 1}: harness {rates['harness'][-1]:.1f} texts/s, encode "
              f"{rates['encode'][-1]:.1f} texts/s, load {os.getloadavg()[0]:.2f}", flush=True)
    ours, theirs = statistics.median(rates["harness"]), statistics.median(rates["encode"])
    print(f"{len(prompts)} prompts, model {embedder.model}: harness {ours:.1f} texts/s, sentence-transformers encode "
          f"{theirs:.1f} texts/s (median of {args.rounds}); harness / encode {ours / theirs:.2f}x on "
          f"{os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

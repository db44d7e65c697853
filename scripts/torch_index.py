"""Where `make setup` takes torch from: PyTorch's CPU wheel index when it answers, so a stock machine gets the CPU
build (a few hundred MB) rather than PyPI's default CUDA build (several GB); otherwise the configured index, saying
so. Prints the pip arguments on stdout (none for the configured index) and its decision on stderr. Standard
library only: it runs before the virtual environment holds anything."""

import sys
import urllib.error
import urllib.request

DEFAULT_INDEX = "https://download.pytorch.org/whl/cpu"
TIMEOUT_SECONDS = 10.0


def answers(index: str, timeout: float = TIMEOUT_SECONDS) -> str | None:
    """None when the index lists torch (PEP 503: INDEX/torch/), else why not."""
    url = index.rstrip("/") + "/torch/"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            if response.status == 200:
                return None
            return f"{url}: HTTP {response.status}"
    except urllib.error.HTTPError as error:
        return f"{url}: HTTP {error.code} {error.reason}"
    except (urllib.error.URLError, OSError, ValueError) as error:
        return f"{url}: {getattr(error, 'reason', error)}"


def pip_arguments(index: str) -> tuple[list[str], str]:
    """The pip arguments that take torch from `index` when it answers, and the sentence saying which was chosen."""
    if not index:
        return [], "torch: from the configured index (TORCH_INDEX is empty)"
    why_not = answers(index)
    if why_not is None:
        return ["--index-url", index], f"torch: from {index}"
    return [], (f"torch: {index} is unreachable ({why_not}); installing from the configured index instead, which on "
                "a stock machine may be a CUDA build of several GB")


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print("usage: python scripts/torch_index.py [INDEX_URL]", file=sys.stderr)
        return 2
    arguments, sentence = pip_arguments(argv[0] if argv else DEFAULT_INDEX)
    print(sentence, file=sys.stderr)
    print(" ".join(arguments))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

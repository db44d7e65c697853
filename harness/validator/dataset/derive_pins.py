"""Recompute the derivable part of a dataset's pins from its archive, for whoever maintains the pins.

`python -m harness.validator.dataset.derive_pins PINS.json ARCHIVE` prints the pins file with its member
digests and sizes, shape, content digests and test judgements recomputed from ARCHIVE (the names, words,
contract terms and profile are kept from PINS.json). The test suite runs it on the shipped pins, so a pin
that the archive does not give fails a test. Pins are changed only by committing the file it prints.
"""

import hashlib
import json
import sys
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .archive_reader import parse
from .content import semantic_digests, semantic_texts
from .pins import Pins

MAX_MEMBER_BYTES = 1 << 26


def derive(template: Pins, archive_path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(archive_path) as archive:
        bodies = {name: archive.open(name).read(MAX_MEMBER_BYTES) for name in template.member_files}
    roles = template.members
    content = parse(bodies[roles["corpus"]], bodies[roles["queries"]], bodies[roles["qrels"]])
    pins = asdict(template)
    pins["member_files"] = {name: {"bytes": len(body), "sha256": "sha256:" + hashlib.sha256(body).hexdigest()}
                            for name, body in bodies.items()}
    pins["contract"] = {**template.contract, **content.shape()}
    ceiling = int(template.profile["max_code_points"])
    pins["content_sha256"] = {**content.digests(), **semantic_digests(semantic_texts(content, ceiling))}
    pins["qrels"] = content.qrels
    return pins


USAGE = "usage: python -m harness.validator.dataset.derive_pins PINS.json ARCHIVE"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    for name, given in zip(("PINS.json", "ARCHIVE"), argv, strict=True):
        if not given or not Path(given).is_file():
            print(f"error: {name} {given!r} is not a file; name the pins file and the dataset's zip archive\n{USAGE}",
                  file=sys.stderr)
            return 2
    pins_file, archive = Path(argv[0]), Path(argv[1])
    stated = json.loads(pins_file.read_text(encoding="utf-8"))
    try:
        derived = derive(Pins(**stated), archive)
    except (zipfile.BadZipFile, KeyError) as exc:
        print(f"error: {archive} is not the dataset's archive ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 1
    in_file_order = {key: derived[key] for key in stated if key in derived} | derived  # commit it without reordering
    print(json.dumps(in_file_order, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

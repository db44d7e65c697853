"""Validation that keeps its verdicts: each aggregate validated once per bytes read and validator, and many
aggregates in one process (the model loaded once, the fixture's full re-embedding made once).

`validate_stored` reuses the verdict stored for the same bytes, validator and options (`verdicts.store`), else
validates with every read recorded (`core.reading`) and stores the sealed verdict; it says which in one line on
stderr. A verdict with a check that could not be verified here is not stored (a server or a live system may answer
next time); without a usable key nothing is stored, and the line says so."""

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core.reading import recording
from .core.report import Report
from .dataset.check_dataset import ARCHIVE_VARIABLE
from .embedding.embedders import ollama_server
from .embedding.model_at_hand import offer_models
from .pipeline import validate
from .system.replay_groups import replays_shared
from .verdicts.inputs import subject_roles, taken
from .verdicts.key import KeyUnusable, load_key
from .verdicts.store import Lookup, lookup, store

Say = Callable[[str], None]


@dataclass(frozen=True)
class Subject:
    """An aggregate to validate: its rows and freeze record (None: the ones it names), and `home`, the output
    directory whose validation/ folder keeps its verdict and whose locations.json places the fixture and store (None:
    the aggregate's own directory)."""
    aggregate: Path
    rows: Path | None = None
    freeze: Path | None = None
    home: Path | None = None


@dataclass(frozen=True)
class Options:
    embeddings: bool = True
    full_embedding: bool = False
    fixture: Path | None = None
    store_dir: Path | None = None
    archive: Path | None = None
    ollama_url: str | None = None
    models: tuple[Path, ...] = ()  # the models the verifier supplies (--model), tried before any hint

    def record(self) -> dict[str, Any]:
        """The options that change a verdict, as stored with it."""
        archive = self.archive or (Path(os.environ[ARCHIVE_VARIABLE]) if os.environ.get(ARCHIVE_VARIABLE) else None)
        return {"embedding": "none" if not self.embeddings else "full" if self.full_embedding else "sample",
                "archive": None if archive is None else os.path.abspath(archive),
                "archive_named": self.archive is not None, "ollama": ollama_server(self.ollama_url),
                "fixture": None if self.fixture is None else str(self.fixture),
                "store_dir": None if self.store_dir is None else str(self.store_dir),
                **({"models": [os.path.abspath(model) for model in self.models]} if self.models else {})}


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _validate(subject: Subject, options: Options) -> Report:
    offer_models(options.models)
    return validate(subject.aggregate, subject.rows, fixture=options.fixture, freeze=subject.freeze,
                    embeddings=options.embeddings, full_embedding=options.full_embedding,
                    store_dir=options.store_dir, archive=options.archive, ollama_url=options.ollama_url,
                    locations=subject.home)


def validate_stored(subject: Subject, options: Options = Options(), *, reuse: bool = True,
                    say: Say = _stderr, looked_up: Lookup | None = None) -> Report:
    """`looked_up`: the lookup already made for this subject, these options and this key (a verdict found or why
    none stands), which is not made again."""
    name = subject.aggregate.name
    try:
        key = load_key()
    except KeyUnusable as exc:
        say(f"validator: {name}: validated, nothing stored: {exc}")
        report = _validate(subject, options)
        report.notes["stored_verdict"] = {"reused": False, "why": str(exc), "file": None}
        return report
    home = subject.home or subject.aggregate.parent
    roles = subject_roles(subject.aggregate, subject.rows, subject.freeze)
    recorded = options.record()
    why = "validated again on request"
    if reuse:
        found = looked_up or lookup(home, subject.aggregate, roles, recorded, key)
        if found.report is not None:
            say(f"validator: {name}: reused {found.why} (same bytes read, same validator)")
            return found.report
        why = found.why
    with recording() as reading:
        report = _validate(subject, options)
    digests, problem = taken(reading, roles)
    written = None
    if report.input_problem is not None:  # not an input it can judge: no verdict to keep
        digests, problem = None, "an input is malformed or not of its kind"
    elif report.not_verified:  # what could not be verified here (no server, no live system) may be, next time
        digests, problem = None, (f"{len(report.not_verified)} check(s) could not be verified here, so it is "
                                  "validated again next time")
    if (report.notes.get("embedding_check") or {}).get("covering") == "sample":
        recorded = {**recorded, "embedding": "full"}  # the kept full re-embedding answered: a full verdict, stored so
    if digests is not None:
        try:
            written = store(home, subject.aggregate, digests, recorded, report, key)
        except (OSError, ValueError) as exc:
            problem = f"the verdict could not be stored ({exc})"
    report.notes["stored_verdict"] = {"reused": False, "why": why, "file": None if written is None else str(written),
                                      **({"not_stored": problem} if written is None else {})}
    say(f"validator: {name}: validated ({why}); " + (f"verdict stored in {written}" if written is not None
                                                      else f"nothing stored: {problem}"))
    return report


def _looked_up(subject: Subject, options: Options) -> Lookup | None:
    """validate_stored's lookup for the subject (a verdict found or why none stands); None without a usable key."""
    try:
        key = load_key()
    except KeyUnusable:
        return None
    roles = subject_roles(subject.aggregate, subject.rows, subject.freeze)
    return lookup(subject.home or subject.aggregate.parent, subject.aggregate, roles, options.record(), key)


def validate_all(subjects: Sequence[Subject], options: Options = Options(), *, reuse: bool = True,
                 say: Say = _stderr) -> list[Report]:
    """Each subject in turn, in this process: the model is loaded once, a fixture's full re-embedding made once, and
    the aggregates of a system of its own that will be validated replayed through it in one process."""
    by_aggregate = {subject.aggregate: subject for subject in subjects}
    looked_up: dict[Path, Lookup] = {}  # the lookups made while grouping, each made once

    def validated(aggregate: Path) -> bool:
        found = _looked_up(by_aggregate[aggregate], options) if reuse else None
        if found is not None:
            looked_up[aggregate] = found
        return found is None or found.report is None

    with replays_shared([(s.aggregate, s.home) for s in subjects], options.fixture, options.store_dir,
                        validated) as shared:
        for said in shared:
            say(f"validator: the live system of its own asked again: {said}")
        return [validate_stored(subject, options, reuse=reuse, say=say,
                                looked_up=looked_up.get(subject.aggregate))
                for subject in subjects]

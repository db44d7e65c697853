"""The validation of one aggregate (every check, in order, from the artifacts and the primary data they name), and of
a comparison artifact, of a split's modes or between systems (recomputed from its rows, each aggregate it read
validated in full)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .comparison.check_comparison import check_comparison
from .comparison.check_systems import EARLIER as EARLIER_SYSTEMS_SCHEMAS
from .comparison.check_systems import SCHEMA as SYSTEMS_SCHEMA
from .comparison.check_systems import check_systems_comparison
from .core.context import InputError, load
from .core.declared import is_builtin
from .core.locations import ARCHIVES
from .core.report import Report
from .core.strict_json import StrictJSONError, load_file
from .dataset.check_dataset import check_archive, check_dataset
from .dataset.collection_name import check_collection_name
from .dataset.declared import check_declared
from .embedding.check_embeddings import check_embeddings
from .history.check_history import check_history
from .history.check_looks import check_looks
from .ranking.check_run_file import check_run_file, is_run_file
from .receipt.check_bindings import (
    check_config,
    check_corpus,
    check_freeze,
    check_receipt_identity,
    check_split_and_queries,
)
from .receipt.check_environment import check_environment
from .replay.check_dense import check_query_vectors, fixture_query_vectors
from .replay.check_replay import check_replay, load_replay
from .rows.check_aggregate import check_aggregate, check_artifact_files
from .rows.check_chosen import check_chosen
from .rows.check_rows import check_row_schemas, check_rows
from .rows.measures import check_measures, run_conventions
from .system.check_store import check_store
from .system.check_system import (
    check_system_modules,
    check_system_source,
    check_system_store,
    fixture_replay,
)


def validate(aggregate: Path, rows: Path | None = None, *, fixture: Path | None = None, freeze: Path | None = None,
             embeddings: bool = True, full_embedding: bool = False, store_dir: Path | None = None,
             archive: Path | None = None, ollama_url: str | None = None, locations: Path | None = None,
             system_path: Path | None = None) -> Report:
    """`archive`: the dataset's archive to re-derive the fixture from (None: $SCIFACT_ARCHIVE when it holds the
    dataset's members, else the pins alone). `ollama_url`: the verifier's Ollama server, for a fixture embedded
    by Ollama (None: $OLLAMA_HOST; never the endpoint the fixture names). `locations`: the output directory whose
    locations.json places the fixture, store and system source when no option names them (None: the aggregate's).
    `system_path`: where the system's source is now (a bundle's system-source/), when given."""
    report = Report(str(aggregate))
    try:
        ctx = load(aggregate, rows, fixture, freeze, store_dir, locations, system_path)
    except StrictJSONError as exc:
        report.fail("json.strict", "artifacts parse as strict JSON (no NaN, Infinity or duplicate keys)",
                    "strict JSON", str(exc))
        report.input_problem = str(exc)
        return report
    except InputError as exc:
        report.fail("inputs", "the artifacts named exist", "present", str(exc))
        report.input_problem = str(exc)
        return report
    report.ok("json.strict", "aggregate and rows parse as strict JSON")
    check_artifact_files(ctx, report)
    if report.failed or not check_row_schemas(ctx, report):
        return report  # malformed artifacts: the checks below read the fields the schemas require
    measured = run_conventions(ctx)  # the pins' conventions, never the receipt's
    check_rows(ctx, report, measured.conventions)
    check_aggregate(ctx, report)
    check_measures(ctx, measured, report)
    check_chosen(ctx, report, measured.conventions)
    builtin = is_builtin(ctx)
    if check_corpus(ctx, report):
        assert ctx.fixture is not None
        pins = check_dataset(ctx.fixture, ctx.receipt, report, ctx.fixture_sha256)
        check_collection_name(ctx.fixture, pins, report)
        # the archive named, else the one the output directory's locations.json places by the declared digest
        hinted = ctx.places.place(ARCHIVES, (ctx.fixture.get("source") or {}).get("archive_sha256"))
        if pins is not None:
            check_archive(ctx.fixture, pins, archive, report, hinted)
        else:  # a collection of the publisher's own: only its archive re-derives it
            check_declared(ctx.fixture, ctx.receipt, archive or hinted, report, ctx.places.unplaced)
        check_split_and_queries(ctx, report)
        if is_run_file(ctx):  # read from the run file again, never replayed: no lane, no query vector
            check_system_store(ctx, report)
            check_run_file(ctx, report)
        elif builtin:
            live = check_store(ctx, report)
            replay = load_replay(ctx, live) if live else None
        else:
            check_system_store(ctx, report)
            replay = fixture_replay(ctx)
        if not is_run_file(ctx):
            vectors = fixture_query_vectors(ctx)
            check_query_vectors(ctx, report, vectors)
            texts = {q["query_id"]: q["text"] for q in ctx.fixture["queries"]} if ctx.fixture else {}
            check_replay(ctx, report, replay, vectors, texts)
    check_system_source(ctx, report)
    check_system_modules(ctx, report)
    check_receipt_identity(ctx, report)
    check_config(ctx, report)
    check_freeze(ctx, report)
    check_history(ctx, report)
    check_looks(ctx, report)
    check_environment(ctx, report)
    if is_run_file(ctx):
        report.notes["embeddings"] = "not read: a run file's rankings use none of the fixture's vectors"
    elif embeddings:
        check_embeddings(ctx, report, full=full_embedding, ollama_url=ollama_url)
    else:
        report.unverified("embeddings.model", "skipped on request (--no-embedding-check)")
    return report


def comparison_schema(comparison: Path) -> Any:
    """The `schema` a comparison file states, or None when it is not a readable strict JSON object."""
    try:
        document = load_file(comparison)
    except (OSError, StrictJSONError):
        return None
    return document.get("schema") if isinstance(document, dict) else None


@dataclass(frozen=True)
class Inputs:
    """Where a comparison's inputs are, when not at the places their receipts record (a bundle's copies): the
    fixture, each run's store by run name (None for a comparison of modes, whose run is one), the system's source for
    a run of the bundle's own system, and the fixture of each compared run that read another fixture, by run name."""

    fixture: Path | None = None
    store_dirs: Mapping[str | None, Path] = field(default_factory=dict)
    system_path: Path | None = None
    run_fixtures: Mapping[str, Path] = field(default_factory=dict)


def validate_systems_comparison(comparison: Path, *, embeddings: bool = True, full_embedding: bool = False,
                                known: Mapping[str, Report] | None = None, archive: Path | None = None,
                                ollama_url: str | None = None, inputs: Inputs = Inputs()) -> Report:
    """A comparison between systems, recomputed from its runs' rows; each input aggregate validated in full against
    its own run's freeze record (or its report taken from `known`, keyed by the aggregate's sha256)."""
    return check_systems_comparison(comparison, lambda aggregate, freeze, run: validate(
        aggregate, freeze=freeze, embeddings=embeddings, full_embedding=full_embedding, archive=archive,
        ollama_url=ollama_url, fixture=inputs.run_fixtures.get(run, inputs.fixture),
        store_dir=inputs.store_dirs.get(run)), known=known)


def validate_comparison(comparison: Path, *, artifacts_dir: Path | None = None, embeddings: bool = True,
                        full_embedding: bool = False, known: Mapping[str, Report] | None = None,
                        archive: Path | None = None, ollama_url: str | None = None,
                        inputs: Inputs = Inputs()) -> Report:
    """A comparison artifact, recomputed from its rows; each input aggregate validated in full (or its report taken
    from `known`, keyed by the aggregate's sha256, when this process validated it already). A comparison between
    systems (its `schema` says so) goes to `validate_systems_comparison`: it finds its runs' files itself, so
    `artifacts_dir` is for a comparison of modes only."""
    if comparison_schema(comparison) in (SYSTEMS_SCHEMA, *EARLIER_SYSTEMS_SCHEMAS):
        if artifacts_dir is not None:
            raise ValueError("artifacts_dir is for a comparison of modes; a comparison between systems finds its "
                             "runs in runs/NAME/ beside it, else in each run's recorded output_dir")
        return validate_systems_comparison(comparison, embeddings=embeddings, full_embedding=full_embedding,
                                           known=known, archive=archive, ollama_url=ollama_url, inputs=inputs)
    return check_comparison(comparison, lambda aggregate: validate(
        aggregate, embeddings=embeddings, full_embedding=full_embedding, archive=archive, ollama_url=ollama_url,
        fixture=inputs.fixture, store_dir=inputs.store_dirs.get(None), system_path=inputs.system_path),
        artifacts_dir=artifacts_dir, known=known)

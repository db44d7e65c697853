"""CLAIMS.md, generated from the receipts: what the bundled runs support and what they do not prove."""

import json
from collections.abc import Sequence
from typing import Any

from harness.evaluation.sweep.configuration_words import configuration_phrase
from harness.publish.claims.claims_comparisons import comparisons_section
from harness.publish.claims.claims_reader import model_steps, reader_archive, reader_command, reader_section
from harness.publish.claims.claims_source import harness_origin, source_lines
from harness.publish.claims.claims_systems import systems_section
from harness.publish.environment.carried_model import CarriedModel
from harness.publish.environment.stage import StagedEnvironment
from harness.publish.source.system_source import StagedSource
from harness.publish.text.heldout_looks import looks_statement
from harness.publish.text.lane_words import lane_words
from harness.publish.text.latency_notes import latency_lines
from harness.publish.text.markdown_text import code, inert
from harness.publish.text.reading_notes import all_queries_note, latency_scope, short_list, short_lists
from harness.publish.text.report_text import LANES_NOTE
from harness.publish.text.trials_words import trials_statement

METRICS = (("nDCG@10", "ndcg_at_10"), ("R@1", "recall_at_1"), ("R@5", "recall_at_5"), ("R@10", "recall_at_10"),
           ("MRR@10", "mrr_at_10"), ("MAP@10", "map_at_10"), ("S@1", "success_at_1"), ("S@5", "success_at_5"),
           ("S@10", "success_at_10"), ("R@100", "recall_at_100"), ("nDCG@100", "ndcg_at_100"))


def _table(aggregates: list[dict[str, Any]], split: str) -> list[str]:
    """The split's results: the default metrics, then every measure a run of the split chose by name (n/a where a
    run did not), the latency and the failures."""
    rows = [a for a in aggregates if a["split"] == split]
    chosen = list(dict.fromkeys(name for a in rows for name in (a.get("measures") or {}).get("names", [])))
    header = ("| mode | queries | " + " | ".join([name for name, _ in METRICS] + chosen)
              + " | p50 ms | p95 ms | failures |")
    lines = [header, "|" + " --- |" * (len(METRICS) + len(chosen) + 5)]
    for a in rows:
        m, means = a["metrics"], (a.get("measures") or {}).get("means", {})
        values = " | ".join([f"{m[key]:.4f}" if key in m else "n/a" for _, key in METRICS]  # @100: depth-100 rows
                            + [f"{means[name]:.4f}" if name in means else "n/a" for name in chosen])
        lines.append(f"| {code(a['mode'])} | {inert(a['row_count'])} | {values} | {m['latency_ms']['p50']:.3f} | "
                     f"{m['latency_ms']['p95']:.3f} | {inert(m['failures'])} |")
    return lines


def _calibration_only(missing: Sequence[str]) -> list[str]:
    if not missing:
        return []
    return [f"This bundle is calibration only: exploratory. The freeze names held-out runs it does not carry "
            f"({inert(', '.join(missing))}, and their rows): no held-out figure is shown, and nothing here supports "
            "a confirmatory claim. Run the held-out split of every frozen mode, then bundle again.", ""]


def _items(items: list[str], empty: str) -> list[str]:
    """A list's items, or a sentence saying why there are none: a heading is never followed by nothing."""
    return items if items else [empty]


def _split_notes(aggregates: list[dict[str, Any]], split: str) -> list[str]:
    runs = [a for a in aggregates if a["split"] == split]
    short = [f"- {inert(line)}" for a in runs if (line := short_list(a)) is not None]
    lines = short or [inert(line) for line in short_lists(runs)]
    if split == "all":
        lines += ["", inert(all_queries_note(runs[0]["receipt"]["split"]["calibration_count"]))]
    return [*lines, ""]


def _verification(aggregates: list[dict[str, Any]], reports: list[dict[str, Any]], command: str) -> list[str]:
    """What the independent validator established for each aggregate, and what it could only take on trust."""
    lines = ["## What the validator established", "", LANES_NOTE, "",
             "How each lane of each run was verified (every row, no sample):", ""]
    for aggregate, report in zip(aggregates, reports, strict=True):
        statuses = lane_words(report)
        lines.append(f"- {code(aggregate['mode'])} {inert(aggregate['split'])}: " + ("; ".join(
            f"{inert(name)}: {inert(status)}" for name, status in statuses.items()) or "no lane status reported"))
    lines += ["", "The replay checks in detail:", ""]
    for aggregate, report in zip(aggregates, reports, strict=True):
        replays = [c for c in report["checks"] if c["name"].startswith("replay.")]
        lines.append(f"- {code(aggregate['mode'])} {inert(aggregate['split'])}: " + ("; ".join(
            f"{inert(c['name'])}: {inert(c['detail'].split(': ', 1)[-1])}" for c in replays) or "no replay check"))
    embedding = {json.dumps(r["notes"]["embedding_check"], sort_keys=True) for r in reports
                 if r["notes"].get("embedding_check") is not None}
    verifiers = {json.dumps(r["notes"]["embedding_verification"], sort_keys=True) for r in reports
                 if r["notes"].get("embedding_verification") is not None}
    archives = sorted({r["notes"].get("archive", "not re-derived") for r in reports})
    kept = _kept(reports, command)
    if not embedding:  # every run a run file's: no ranking here read a vector
        lines += ["", "Re-embedding: none; the rankings of these runs were read from run files and use none of the "
                  "fixture's vectors."]
    elif not any((r["notes"].get("re_embedding") or {}).get("reused") for r in reports):
        lines += ["", f"Re-embedding with the declared model: {inert('; '.join(sorted(embedding)))}."]
    lines += [] if not verifiers else [
        "The vectors were verified through the verifier's own embedder, never an endpoint the fixture names: "
        f"{inert('; '.join(sorted(verifiers)))}."]
    lines += ["",
              f"The dataset: documents, test queries and judgements identified by "
              f"{inert(reports[0]['notes']['dataset']['pinned_by'])}; archive re-derivation: "
              f"{inert('; '.join(archives))}.", "", "## What was taken on the run's word", ""]
    lines += _items(kept + _attested(aggregates, reports),
                    "Nothing: every check the validator ran was established from primary data.")
    return [*lines, ""]


def sealed(command: str) -> str:
    return ("sealed with the publishing machine's key: it attests that the publisher's validator ran, and proves "
            f"nothing to anyone else; `{command}` re-embeds every text and "
            "re-validates everything itself")


def _kept(reports: list[dict[str, Any]], command: str) -> list[str]:
    """A kept re-embedding or a stored verdict that was reused: the publisher's word, never established here."""
    made = sorted({f"re-embedded on {kept['re_embedded_at']} by validator {kept['validator']}; reused" for r in reports
                   if (kept := r["notes"].get("re_embedding")) and kept.get("reused")})
    reused = [r for r in reports if (r["notes"].get("stored_verdict") or {}).get("reused")]
    embedding = sorted({json.dumps(r["notes"].get("embedding_check"), sort_keys=True) for r in reports})
    lines = [f"- re-embedding, a kept record reused: the fixture's vectors were {inert('; '.join(made))} "
             f"({inert('; '.join(embedding))}), {sealed(command)}"] if made else []
    return lines + ([f"- stored verdicts, reused from this machine's stored verdicts: {len(reused)} of {len(reports)} "
                     "(each for the same bytes read, the same validator source and options), " + sealed(command)]
                    if reused else [])


def _attested(aggregates: list[dict[str, Any]], reports: list[dict[str, Any]]) -> list[str]:
    """Every attestation of every run's report, each named with the runs it was made for: the same words for several
    runs once, with those runs (or "every run"); different words for the same check each on its line."""
    runs: dict[tuple[str, str], list[str]] = {}
    for aggregate, report in zip(aggregates, reports, strict=True):
        for attestation in report.get("attested", []):
            runs.setdefault((attestation["name"], attestation["detail"]), []).append(
                f"{aggregate['mode']} {aggregate['split']}")
    return [f"- {inert(name)}, {inert('every run' if len(named) == len(aggregates) else ', '.join(named))}: "
            f"{inert(detail)}" for (name, detail), named in sorted(runs.items())]


def _run_file_line(retrieval: dict[str, Any]) -> list[str]:
    """A run file's system: the file its rankings were read from, and whose word they are."""
    run = retrieval["config"].get("run_file") if retrieval["mode"] == "run_file" else None
    if not isinstance(run, dict):
        return []
    return [f"- Rankings: made outside the harness and read from the run file {code(str(run['given_name']))} "
            f"({inert(str(run['format']))}, {run['entries']} entries over {run['queries']} queries, "
            f"{code(str(run['sha256']))}), kept in the run's store; the harness and the validator each read it, ties "
            "in trec_eval's order; how the rankings were made, and by whom, is the publisher's word (ranking attested)"]


def _system_line(system: dict[str, Any]) -> str:
    package = system["package"]
    shipped = f", package {inert(package['name'])} {inert(package['version'])}" if package else ""
    engine = system["engine"]
    return (f"- System under test: {code(system['name'])} {inert(system['version'])} "
            f"({code('--system ' + str(system['spec']))}{shipped}); engine {inert(engine['name'])} "
            f"({inert(engine['version'])}); source {code(system['source']['sha256'])} "
            f"({len(system['source']['files'])} file{'' if len(system['source']['files']) == 1 else 's'}); declares "
            f"{code(json.dumps(system['declarations'], sort_keys=True, ensure_ascii=False))}")


def _model_files(embedding: dict[str, Any]) -> str:
    identity = embedding["identity"]
    if "files" not in identity:
        return ""
    revision = f", revision {code(identity['revision'])}" if identity.get("revision") else ""
    return f"{revision}, files {code(identity['model_files_sha256'])}"


def claims_markdown(aggregates: list[dict[str, Any]], freeze: dict[str, Any], reports: list[dict[str, Any]],
                    comparisons: Sequence[dict[str, Any]] = (), *, source: StagedSource | None = None,
                    systems: Sequence[dict[str, Any]] = (), environment: StagedEnvironment | None = None,
                    carried: str | None = None, model: CarriedModel | None = None, missing: Sequence[str] = ()) -> str:
    """`environment`: the wheel and lock the bundle carries for its reader; `carried`: the collection's archive's
    path in the bundle, for a collection of the publisher's own; `model`: the model of one's own it carries;
    `missing`: the frozen modes' held-out aggregates not run yet (a calibration-only bundle: exploratory)."""
    receipt = aggregates[0]["receipt"]
    payload, retrieval = receipt["corpus"]["payload_hashes"], receipt["retrieval"]
    dataset = reports[0]["notes"]["dataset"]  # the validator's pins name it: every bundled aggregate passed them
    heldout_start = min((a["receipt"]["run"]["started_at"] for a in aggregates if a["split"] == "heldout"),
                        default="never (calibration only)")
    boundary, machine = receipt["claim_boundary"], receipt["machine"]
    named_model = model_steps(receipt["embedding"], model, "")[1]
    command = reader_command(reader_archive(receipt, dataset, carried)) + named_model
    lines = [
        f"# Claims: retrieval evaluation on {inert(dataset['title'])}",
        "",
        f"Dataset: {inert(dataset['scope'])} (identified by {inert(dataset['pinned_by'])}).",
        "",
        *_calibration_only(missing),
        "Generated from the bundled receipts. Every aggregate here passed the independent validator on the",
        "publishing machine (`validation/`); `MANIFEST.json` holds the sha256 of every file.",
        "",
        f"To check all of it yourself, run the commands of \"Check it yourself\" below; the last, `{command}`,",
        "holds every file to `MANIFEST.json`, re-embeds every text with your own embedder,",
        "replays and recomputes every artifact, reuses nothing sealed by the publisher, and prints one verdict per",
        "artifact and one for the bundle. The bundle carries the fixture and the stores its runs read (`inputs/`: the",
        "fixture under `inputs/fixture/`, this run's store under `inputs/store/`, each compared run's under",
        "`inputs/runs/NAME/store/`), each held to the receipts' digests when it was bundled, so nothing of the",
        "publisher's machine is needed. Carrying the vectors does not make them trustworthy: your re-embedding of",
        "every text does, not the publisher's word.",
        "",
        "## What was run",
        "",
        f"- Source: {harness_origin(receipt['source'])}, harness digest "
        f"{code(receipt['source']['harness']['sha256'])}",
        f"- Corpus: fixture {code(receipt['corpus']['fixture_sha256'])}; payload hashes documents "
        f"{code(payload['documents'])}, queries {code(payload['queries'])}, qrels {code(payload['qrels'])}",
        f"- Embedding: {code(receipt['embedding']['model'])} ({inert(receipt['embedding']['dimensions'])} dimensions, "
        f"identity {code(receipt['embedding']['identity_sha256'])}{_model_files(receipt['embedding'])}), profile "
        f"{code(receipt['profile']['name'])}",
        _system_line(receipt["system"]),
        *_run_file_line(retrieval),
        *source_lines(source, freeze),
        f"- Store: {code(receipt['store']['store_sha256'])} ({inert(receipt['store']['document_count'])} documents), "
        f"mapping {code(receipt['store']['mapping_sha256'])}",
        f"- Configuration: {code(retrieval['config_sha256'])} (`configuration.json`)"
        f"{inert(configuration_phrase(receipt['system']['name'], retrieval['config']))}",
        f"- Split: {inert(receipt['split']['algorithm'])}; calibration count "
        f"{inert(receipt['split']['calibration_count'])}",
        f"- Freeze: {code(freeze['freeze_sha256'])}, created {inert(freeze['created_at'])}; calibration: "
        f"{inert(freeze['calibration']['policy'])}; first held-out run started {inert(heldout_start)}",
        *([f"- {inert(looks)}"] if (looks := looks_statement(aggregates)) is not None else []),
        *([f"- {inert(trials)}"] if (trials := trials_statement(freeze)) is not None else []),
        f"- Machine: {inert(machine['cpu_model'])}, {inert(machine['logical_cores'])} logical cores, "
        f"{inert(machine['os'])}",
        "",
        "## Results",
        "",
    ]
    for split in ("calibration", "heldout", "all"):
        if any(a["split"] == split for a in aggregates):
            lines += [f"### {split}", "", *_table(aggregates, split), "", *_split_notes(aggregates, split)]
    lines += _verification(aggregates, reports, command)
    if comparisons:
        lines += comparisons_section(comparisons, receipt["split"]["calibration_count"])
    lines += systems_section(systems)
    single = sorted({a["split"] for a in aggregates} - {c["split"] for c in comparisons})
    if single:
        modes = ", ".join(sorted({a["mode"] for a in aggregates}))
        lines += [f"No comparison for {inert(', '.join(single))}: a comparison needs two modes or more, and these runs "
                  f"hold {inert(modes)} only.", ""]
    lines += ["Calibration numbers served diagnosis and configuration choices; the held-out numbers are the",
              "ones measured after the freeze.", "", "## What these runs support", "",
              inert(boundary["supports_lead"]), ""]
    lines += [f"- {inert(item)}" for item in boundary["supports"]]
    lines += ["", "## What they do not prove", ""]
    lines += [f"- {inert(item)}" for item in boundary["does_not_establish"]]
    capabilities = receipt["capabilities"]
    lines += ["", "Unavailable capabilities (the frozen baseline has none of them):", ""] if capabilities else [
        "", "Unavailable capabilities: none recorded (the receipts list no capability the system lacks)."]
    lines += [f"- {inert(name)}: {inert(c['reason'])}" for name, c in capabilities.items()]
    lines += ["", f"Latency scope: {inert(latency_scope(receipt))}; measured on the machine above only.",
              *latency_lines(aggregates), "", inert(boundary["statement"]), ""]
    lines += reader_section(receipt, dataset, environment, carried, model)
    return "\n".join(lines)

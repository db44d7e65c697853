"""The figures as a table, a log-log plot (one panel per measure) and the growth exponent of each measure: the
least-squares slope of log(cost) on log(size). `write_report` rewrites the part of docs/scale.md between its
figure markers and the plot beside it, and keeps the JSON of the figures there too."""

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("fts_only", "vector_only", "hybrid")
BEGIN, END = "<!-- scale figures: begin (written by python -m benchmarks.scale) -->", "<!-- scale figures: end -->"
MIB = 2 ** 20


@dataclass(frozen=True)
class Measure:
    panel: str  # the plot panel and the table's unit
    label: str
    path: tuple[str, ...]  # where in a result entry the value lies
    scale: float = 1.0


PANELS = {"build and open time (s)": "build", "store on disk (MiB)": "disk", "peak RSS (MiB)": "rss",
          "latency p50 (ms)": "p50", "latency p95 (ms)": "p95",
          "latency p50, CPU time (ms)": "cpu_p50", "validator replay (s)": "replay"}
MEASURES = (
    Measure("build and open time (s)", "build", ("build", "build_seconds")),
    Measure("build and open time (s)", "build, CPU time", ("build", "build_cpu_seconds")),
    Measure("build and open time (s)", "open", ("query", "open_seconds")),
    Measure("store on disk (MiB)", "store", ("store_disk_bytes",), 1 / MIB),
    Measure("peak RSS (MiB)", "corpus only", ("corpus", "peak_rss_bytes"), 1 / MIB),
    Measure("peak RSS (MiB)", "build", ("build", "peak_rss_bytes"), 1 / MIB),
    Measure("peak RSS (MiB)", "open + queries", ("query", "peak_rss_bytes"), 1 / MIB),
    Measure("peak RSS (MiB)", "replay", ("replay", "peak_rss_bytes"), 1 / MIB),
    *(Measure(f"latency {q} (ms)", mode, ("query", "latency_ms", mode, q)) for q in ("p50", "p95") for mode in MODES),
    *(Measure("latency p50, CPU time (ms)", mode, ("query", "latency_ms", mode, "cpu_p50")) for mode in MODES),
    Measure("validator replay (s)", "setup", ("replay", "replay_setup_seconds")),
    *(Measure("validator replay (s)", f"{mode}, all queries", ("replay", "replay_seconds", mode)) for mode in MODES),
    *(Measure("validator replay (s)", f"{mode}, all queries, CPU time", ("replay", "replay_cpu_seconds", mode))
      for mode in MODES),
)


def value(entry: dict[str, Any], measure: Measure) -> float | None:
    """The measure's value in an entry; a stopped phase's peak RSS is only where it was stopped, so it is none."""
    phase = entry.get(measure.path[0])
    if isinstance(phase, dict) and "failed" in phase and measure.path[-1] == "peak_rss_bytes":
        return None
    found: Any = entry
    for key in measure.path:
        if not isinstance(found, dict) or key not in found:
            return None
        found = found[key]
    return float(found) * measure.scale if isinstance(found, (int, float)) else None


def exponent(points: list[tuple[int, float]]) -> float | None:
    """The least-squares slope of log(value) on log(size); None with fewer than two sizes or a non-positive value."""
    usable = [(s, v) for s, v in points if s > 0 and v > 0]
    if len({s for s, _ in usable}) < 2 or len(usable) != len(points):
        return None
    slope, _ = np.polyfit(np.log([s for s, _ in usable]), np.log([v for _, v in usable]), 1)
    return float(slope)


def series(document: dict[str, Any]) -> list[dict[str, Any]]:
    """One series per system and measure: its (size, value) points and its growth exponent."""
    out = []
    for system in document["plan"]["systems"]:
        entries = sorted((e for e in document["results"] if e["system"] == system), key=lambda e: e["size"])
        for measure in MEASURES:
            points = [(int(e["size"]), v) for e in entries if (v := value(e, measure)) is not None]
            if points:
                out.append({"system": system, "panel": measure.panel, "label": measure.label, "points": points,
                            "exponent": exponent(points)})
    return out


def merged(documents: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs' figures as one (same machine): a later run's entry of a system and size replaces an earlier
    one's; the plan lists every size and system, and the run plans are kept."""
    entries: dict[tuple[str, int], dict[str, Any]] = {}
    for document in documents:
        entries.update({(e["system"], int(e["size"])): e for e in document["results"]})
    first = documents[0]
    plan = {**first["plan"], "sizes": sorted({size for _, size in entries}),
            "systems": [s for s in ("builtin", "milvus") if any(system == s for system, _ in entries)],
            "runs": [d["plan"] for d in documents]}
    return {"machine": first["machine"], "plan": plan,
            "results": sorted(entries.values(), key=lambda e: (int(e["size"]), e["system"]))}


def _stopped(phase: dict[str, Any]) -> str:
    """The stop as the watchdog saw it, with the CPU time the phase had had by then (a stop on a loaded machine
    shows as far less CPU than wall time) and what it had measured before it was stopped."""
    done = [f"{mode} p50 {figures['p50']:.3g} ms" for mode, figures in phase.get("latency_ms", {}).items()]
    return (f"{phase['failed']}; {phase.get('cpu_seconds', 0.0):.0f} s of CPU time by then"
            + (f"; measured before the stop: {', '.join(done)}" if done else ""))


def failures(document: dict[str, Any]) -> list[str]:
    return [f"{e['system']} at {e['size']:,} documents, {phase}: {_stopped(e[phase])}" for e in document["results"]
            for phase in ("corpus", "build", "query", "replay") if "failed" in e.get(phase, {})]


def _number(x: float) -> str:
    return f"{x:.3g}" if x < 1000 else f"{x:,.0f}"


def table(document: dict[str, Any]) -> str:
    sizes = sorted({int(e["size"]) for e in document["results"]})
    lines = ["| system | measure | " + " | ".join(f"{s:,} docs" for s in sizes) + " | exponent |",
             "| --- | --- | " + " | ".join("---:" for _ in sizes) + " | ---: |"]
    for line in series(document):
        points = dict(line["points"])
        cells = [_number(points[s]) if s in points else "n/a" for s in sizes]
        slope = "n/a" if line["exponent"] is None else f"{line['exponent']:.2f}"
        lines.append(f"| {line['system']} | {line['panel'].rsplit(' (', 1)[0]}: {line['label']} "
                     f"({line['panel'].rsplit('(', 1)[1]} | {' | '.join(cells)} | {slope} |")
    return "\n".join(lines)


def plot(document: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = 3
    figure, axes = plt.subplots(math.ceil(len(PANELS) / columns), columns, figsize=(15, 12))
    lines = series(document)
    for axis, panel in zip(axes.ravel(), PANELS, strict=False):
        for line in (item for item in lines if item["panel"] == panel):
            sizes, values = zip(*line["points"], strict=True)
            slope = "" if line["exponent"] is None else f" (slope {line['exponent']:.2f})"
            axis.plot(sizes, values, marker="o", linestyle="-" if line["system"] == "builtin" else "--",
                      label=f"{line['system']}: {line['label']}{slope}")
        axis.set(xscale="log", yscale="log", title=panel, xlabel="documents")
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, format="svg", metadata={"Date": None})
    plt.close(figure)
    return path


def section(document: dict[str, Any], plot_name: str) -> str:
    machine, plan = document["machine"], document["plan"]
    failed = failures(document)
    text = [BEGIN, "", f"Measured on {machine['cpus']} CPUs, {machine['memory_gib']} GiB, {machine['platform']}, "
            f"Python {machine['python']}; {plan['queries']} queries per mode, seed {plan['seed']}.", "",
            f"![cost curves]({plot_name})", "", table(document), ""]
    if failed:
        text += ["Phases that did not finish:", "", *(f"- {line}" for line in failed), ""]
    return "\n".join([*text, END])


def write_report(document: dict[str, Any], docs: Path) -> list[Path]:
    docs.mkdir(parents=True, exist_ok=True)
    figures = docs / "scale.json"
    figures.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    image = plot(document, docs / "scale.svg")
    page = docs / "scale.md"
    current = page.read_text(encoding="utf-8") if page.exists() else f"# Cost at scale\n\n{BEGIN}\n{END}\n"
    if BEGIN not in current or END not in current:
        raise ValueError(f"{page} has no figure markers ({BEGIN} ... {END}); put them where the figures go")
    head, rest = current.split(BEGIN, 1)
    page.write_text(head + section(document, image.name) + rest.split(END, 1)[1], encoding="utf-8")
    return [figures, image, page]

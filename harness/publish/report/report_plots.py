"""The report's plots: matplotlib with the Agg backend, returned as inline SVG (text kept as text, no dates,
fixed element ids, so the same data gives the same SVG).

Every figure is drawn narrow (WIDTH inches, text at FONT_POINTS) with its legend inside or above the axes, never
beside them: the page shows it at the width of a phone's screen at about one CSS pixel per point, so its text stays
at least ~9 px there, and scales it up to at most the stylesheet's cap on a wide screen. The per-query differences
are two filled step areas, neighbours of equal value one step, not one bar per query, so a split of hundreds of
queries stays small.
"""

import io
import math
import re
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from harness.publish.report.report_data import CUTOFFS, LANE_KINDS

COLOURS = {"fts_only": "#0072B2", "vector_only": "#D55E00", "hybrid": "#009E73", "run_file": "#CC79A7"}
LANE_COLOURS = {"lexical only": "#0072B2", "dense only": "#D55E00", "both": "#9E9E9E", "neither": "#E8D44D"}
WIN, LOSS = "#009E73", "#D55E00"
WIDTH = 4.9  # inches: about 350 points once the tight bounding box is taken
FONT_POINTS = 10
STYLE: Any = {"svg.hashsalt": "scifact-report", "svg.fonttype": "none", "font.size": FONT_POINTS,
              "font.family": "sans-serif", "axes.titlesize": FONT_POINTS, "legend.fontsize": FONT_POINTS,
              "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.color": "#E5E5E5",
              "axes.axisbelow": True}
CONTENDED_STYLE = (0, (4, 2))  # a contended run's line is dashed, and its legend entry says so


def _svg(figure: Figure, title: str) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.DOTALL)
    return text.replace("<svg ", f'<svg role="img" aria-label="{title}" ', 1)


def _runs(values: Sequence[float]) -> tuple[list[float], list[float]]:
    """Query i (1-based) spans i - 0.5 to i + 0.5; neighbours of equal value share one step: (edges, heights)."""
    edges: list[float] = [0.5]
    heights: list[float] = []
    for position, value in enumerate(values, start=1):
        if heights and value == heights[-1]:
            edges[-1] = position + 0.5
        else:
            heights.append(value)
            edges.append(position + 0.5)
    return edges, heights


def difference_chart(label: str, values: Sequence[float]) -> str:
    """Per-query differences, sorted: the area above zero is the queries the first mode wins."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(WIDTH, 2.3))
        for part, colour in (([max(v, 0.0) for v in values], WIN), ([min(v, 0.0) for v in values], LOSS)):
            edges, heights = _runs(part)
            axes.stairs(heights, edges, baseline=0.0, fill=True, color=colour, linewidth=0)
        axes.axhline(0.0, color="#333333", linewidth=0.8)
        axes.set_xlim(0.5, len(values) + 0.5)
        axes.set_ylim(-1.05, 1.05)
        axes.set_xlabel("queries, sorted by difference")
        axes.set_ylabel("nDCG@10 difference")
        axes.set_title(label, loc="left")
        return _svg(figure, f"per-query nDCG@10 difference, {label}")


def curves_chart(curves: dict[str, dict[str, list[float]]]) -> str:
    """Success@k and Recall@k for k = 1..10, one line per mode, one panel above the other."""
    with plt.rc_context(STYLE):
        figure, panels = plt.subplots(2, 1, figsize=(WIDTH, 4.4), sharex=True)
        for axes, key, name in ((panels[0], "success", "Success@k"), (panels[1], "recall", "Recall@k")):
            for mode, series in curves.items():
                axes.plot(CUTOFFS, series[key], marker="o", markersize=3, color=COLOURS[mode], label=mode)
            axes.set_title(name, loc="left")
            axes.set_ylim(0.0, 1.0)
        panels[1].set_xticks(CUTOFFS)
        panels[1].set_xlabel("k")
        panels[0].legend(loc="lower right", frameon=False)
        return _svg(figure, "Success@k and Recall@k per mode")


def _plain(value: float, _position: int | None = None) -> str:
    """A log axis's tick as a plain number (0.05, 0.2, 30), not as a power of ten."""
    return f"{value:.6g}"


def _one_two_five(value: float, _position: int | None = None) -> str:
    """Minor ticks of a log axis over decades: only 2 and 5 times a power of ten are labelled, so labels never crowd."""
    leading = value / 10 ** math.floor(math.log10(value)) if value > 0 else 0.0
    return _plain(value) if round(leading, 6) in (2.0, 5.0) else ""


def latency_chart(latencies: dict[str, list[float]], contended: dict[str, str]) -> str:
    """Empirical CDF of per-query latency, log-scaled milliseconds; a run whose latency was not measured on a quiet
    machine (`contended`: mode -> the flag its legend entry carries) is dashed."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(WIDTH, 2.8))
        for mode, values in latencies.items():
            fractions = [(i + 1) / len(values) for i in range(len(values))]
            flag = contended.get(mode)
            axes.step(values, fractions, where="post", color=COLOURS[mode],
                      linestyle=CONTENDED_STYLE if flag else "solid", label=f"{mode} ({flag})" if flag else mode)
        axes.set_xscale("log")
        axes.xaxis.set_major_formatter(FuncFormatter(_plain))
        low, high = axes.get_xlim()
        axes.xaxis.set_minor_formatter(FuncFormatter(_plain if high < 10 * low else _one_two_five))
        axes.set_xlabel("retrieval-call latency (ms, log scale)")
        axes.set_ylabel("fraction of queries")
        axes.set_ylim(0.0, 1.0)
        axes.legend(loc="lower left", bbox_to_anchor=(0.0, 1.02), frameon=False, borderaxespad=0.0)  # above: never on
        return _svg(figure, "latency CDF per mode")


def lanes_chart(counts: dict[int, dict[str, int]]) -> str:
    """For hybrid: at each rank 1..10, how many results each lane had ranked in its own top 10 (or neither)."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(WIDTH, 2.8))
        bottom = [0] * len(CUTOFFS)
        for kind in LANE_KINDS:
            heights = [counts[rank][kind] for rank in CUTOFFS]
            axes.bar(CUTOFFS, heights, bottom=bottom, color=LANE_COLOURS[kind], label=kind, width=0.7)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        axes.set_xticks(CUTOFFS)
        axes.set_xlabel("hybrid rank")
        axes.set_ylabel("queries")
        axes.legend(loc="lower left", bbox_to_anchor=(0.0, 1.02), ncol=2, frameon=False, borderaxespad=0.0)
        return _svg(figure, "hybrid top-10 results by contributing lane")

"""The report's plots: matplotlib with the Agg backend, returned as inline SVG (text kept as text, no dates,
fixed element ids, so the same data gives the same SVG)."""

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

COLOURS = {"fts_only": "#0072B2", "vector_only": "#D55E00", "hybrid": "#009E73"}
LANE_COLOURS = {"lexical only": "#0072B2", "dense only": "#D55E00", "both": "#9E9E9E", "neither": "#E8D44D"}
WIN, LOSS, TIE = "#009E73", "#D55E00", "#BBBBBB"
STYLE: Any = {"svg.hashsalt": "scifact-report", "svg.fonttype": "none", "font.size": 9, "font.family": "sans-serif",
         "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.color": "#E5E5E5",
         "axes.axisbelow": True}


def _svg(figure: Figure, title: str) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.DOTALL)
    return text.replace("<svg ", f'<svg role="img" aria-label="{title}" ', 1)


def difference_chart(label: str, values: Sequence[float], caption: str) -> str:
    """Per-query differences, sorted: bars above zero are queries the first mode wins."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(7.2, 2.4))
        colours = [WIN if v > 0 else LOSS if v < 0 else TIE for v in values]
        positions = range(1, len(values) + 1)
        axes.bar(positions, values, width=1.0, color=colours, linewidth=0)
        axes.axhline(0.0, color="#333333", linewidth=0.8)
        axes.set_xlim(0.5, len(values) + 0.5)
        axes.set_ylim(-1.05, 1.05)
        axes.set_xlabel("queries, sorted by difference")
        axes.set_ylabel("nDCG@10 difference")
        axes.set_title(f"{label}: {caption}", loc="left", fontsize=9)
        return _svg(figure, f"per-query nDCG@10 difference, {label}")


def curves_chart(curves: dict[str, dict[str, list[float]]]) -> str:
    """Success@k and Recall@k for k = 1..10, one line per mode."""
    with plt.rc_context(STYLE):
        figure, panels = plt.subplots(1, 2, figsize=(7.2, 2.6), sharey=True)
        for axes, key, name in ((panels[0], "success", "Success@k"), (panels[1], "recall", "Recall@k")):
            for mode, series in curves.items():
                axes.plot(CUTOFFS, series[key], marker="o", markersize=3, color=COLOURS[mode], label=mode)
            axes.set_xticks(CUTOFFS)
            axes.set_xlabel("k")
            axes.set_title(name, loc="left", fontsize=9)
            axes.set_ylim(0.0, 1.0)
        panels[0].legend(loc="lower right", frameon=False)
        return _svg(figure, "Success@k and Recall@k per mode")


def _plain(value: float, _position: int | None = None) -> str:
    """A log axis's tick as a plain number (0.05, 0.2, 30), not as a power of ten."""
    return f"{value:.6g}"


def _one_two_five(value: float, _position: int | None = None) -> str:
    """Minor ticks of a log axis over decades: only 2 and 5 times a power of ten are labelled, so labels never crowd."""
    leading = value / 10 ** math.floor(math.log10(value)) if value > 0 else 0.0
    return _plain(value) if round(leading, 6) in (2.0, 5.0) else ""


def latency_chart(latencies: dict[str, list[float]]) -> str:
    """Empirical CDF of per-query latency, log-scaled milliseconds."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(7.2, 2.6))
        for mode, values in latencies.items():
            fractions = [(i + 1) / len(values) for i in range(len(values))]
            axes.step(values, fractions, where="post", color=COLOURS[mode], label=mode)
        axes.set_xscale("log")
        axes.xaxis.set_major_formatter(FuncFormatter(_plain))
        low, high = axes.get_xlim()
        axes.xaxis.set_minor_formatter(FuncFormatter(_plain if high < 10 * low else _one_two_five))
        axes.set_xlabel("latency of the retrieval call (ms, log scale)")
        axes.set_ylabel("fraction of queries")
        axes.set_ylim(0.0, 1.0)
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)  # beside the curves, never on them
        return _svg(figure, "latency CDF per mode")


def lanes_chart(counts: dict[int, dict[str, int]]) -> str:
    """For hybrid: at each rank 1..10, how many results each lane had ranked in its own top 10 (or neither)."""
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(figsize=(7.2, 2.4))
        bottom = [0] * len(CUTOFFS)
        for kind in LANE_KINDS:
            heights = [counts[rank][kind] for rank in CUTOFFS]
            axes.bar(CUTOFFS, heights, bottom=bottom, color=LANE_COLOURS[kind], label=kind, width=0.7)
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
        axes.set_xticks(CUTOFFS)
        axes.set_xlabel("hybrid rank")
        axes.set_ylabel("queries")
        axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        return _svg(figure, "hybrid top-10 results by contributing lane")

"""A LaTeX table (booktabs) of the headline numbers: nDCG@10, Recall@10 and MRR@10 per split and mode.

Every value is the receipt's mean at four decimals; every text a receipt supplies (a system's name or version) is
escaped, so no value can become a LaTeX command.
"""

from collections.abc import Mapping, Sequence

from harness.evaluation.comparison.inputs import ModeInput

HEADLINE = (("ndcg_at_10", "nDCG@10"), ("recall_at_10", "Recall@10"), ("mrr_at_10", "MRR@10"))

_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#", "^": r"\^{}",
            "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}"}


def latex_name(dataset: str) -> str:
    return f"{dataset}-headline.tex"


def latex_escaped(text: str) -> str:
    """`text` as inert LaTeX: the special characters escaped, control and line characters shown as `\\uXXXX`."""
    return "".join(_SPECIAL.get(c, c) if c.isprintable() else rf"\textbackslash{{}}u{ord(c):04x}" for c in text)


def latex_text(runs: Mapping[str, Sequence[ModeInput]]) -> str:
    """`runs` is split -> that split's modes, in order; one rule between splits."""
    entry = next(entry for entries in runs.values() for entry in entries)
    first = entry.aggregate["receipt"]
    system = f"{first['system']['name']} {first['system']['version']}"
    dataset = first["corpus"].get("ir_datasets_id") or first["corpus"]["contract"]["name"]
    header = " & ".join(["Split", "Mode", "Queries", *(label for _, label in HEADLINE)])
    lines = [r"% scifact-harness: the receipts' means over every query of each split (a failed query counts as 0).",
             r"% Needs \usepackage{booktabs}.",
             r"\begin{table}[t]", r"\centering",
             rf"\caption{{Retrieval on {latex_escaped(dataset)}: {latex_escaped(system)}, text profile "
             rf"{latex_escaped(first['profile']['name'])}.}}",
             rf"\label{{tab:{latex_escaped(entry.dataset)}-headline}}", r"\begin{tabular}{llrrrr}", r"\toprule",
             header + r" \\", r"\midrule"]
    for number, (split, entries) in enumerate(runs.items()):
        if number:
            lines.append(r"\midrule")
        for entry in entries:
            metrics = entry.aggregate["metrics"]
            cells = [latex_escaped(split), latex_escaped(entry.mode), str(entry.aggregate["row_count"]),
                     *(f"{float(metrics[key]):.4f}" for key, _ in HEADLINE)]
            lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "".join(line + "\n" for line in lines)

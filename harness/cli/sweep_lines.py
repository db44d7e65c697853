"""What a sweep prints, from `sweep` and the pytest suite (`-m sweep`): the configurations by nDCG@10 in every mode,
where they are recorded, and the next command: the calibration run of the configuration chosen."""

from pathlib import Path

from harness.evaluation.history.ledger import LEDGER
from harness.evaluation.sweep.sweep_artifact import SweepResult
from harness.typed_commands import harness_command, shown


def lead_mode(result: SweepResult) -> str:
    """The mode the table is ordered by: hybrid when swept (the mode the built-in system is claimed for), else the
    first."""
    return "hybrid" if "hybrid" in result.modes else result.modes[0]


def _value(value: int | float) -> str:
    return f"{value:g}"


def sweep_lines(result: SweepResult, store_dir: Path) -> list[str]:
    lead = lead_mode(result)
    positions = sorted(ref.position for ref in result.events.values())
    names = list(result.tried[0].parameters)
    lines = [f"sweep: {len(result.tried)} configurations x {len(result.modes)} mode"
             f"{'s' if len(result.modes) != 1 else ''} on {result.query_count} calibration queries in "
             f"{result.seconds:.1f} s; each recorded in {shown(store_dir / LEDGER)} (positions {positions[0]}-"
             f"{positions[-1]}) and in {shown(result.file.path)}"]
    if result.superseded is not None:
        lines.append(f"{'':<4} the earlier sweep's files moved to {shown(result.superseded)} (its events stay counted)")
    widths = [max(len(name), 6) for name in names]
    header = ["#".rjust(3), *(name.ljust(width) for name, width in zip(names, widths, strict=True)),
              *(f"nDCG@10 {mode}".ljust(max(len(mode) + 8, 7)) for mode in result.modes)]
    lines += [f"configurations by nDCG@10 in {lead}:", "  " + "  ".join(header).rstrip()]
    for tried in result.ranked(lead):
        cells = [str(tried.index).rjust(3),
                 *(_value(tried.parameters[name]).ljust(width) for name, width in zip(names, widths, strict=True)),
                 *(f"{tried.scores[mode]['ndcg_at_10']:.4f}".ljust(max(len(mode) + 8, 7)) for mode in result.modes)]
        lines.append("  " + "  ".join(cells).rstrip())
    lines.append("best by nDCG@10: " + "; ".join(
        f"{mode} #{result.best(mode).index} ({result.best(mode).scores[mode]['ndcg_at_10']:.4f})"
        for mode in result.modes))
    return lines


def after_sweep(result: SweepResult, *, corpus: Path, store_dir: Path, output_dir: Path,
                dataset: tuple[str, ...] = (), archive: tuple[str, ...] = ()) -> str:
    """The calibration run of the configuration the user chooses, shown for the best by nDCG@10 in the lead mode."""
    lead = lead_mode(result)
    best = result.best(lead)
    run = harness_command("run", "--corpus", shown(corpus), "--store-dir", shown(store_dir), "--output-dir",
                          shown(output_dir), "--split", "calibration", "--config",
                          shown(result.file.config_path(best.index)), *dataset, *archive)
    return (f"next: the calibration run of the configuration you choose (each one's file is in "
            f"{shown(result.file.configurations)}; every configuration tried is counted at the freeze), e.g. "
            f"#{best.index}, the best by nDCG@10 in {lead}:\n  {run}")

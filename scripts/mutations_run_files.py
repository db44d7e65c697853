"""The mutations of the checks of runs made elsewhere and of measures chosen by name: the validator's reading of a
run file (its order, its digest, every row held to it, the verdict's words), the measures a run or a comparison chose
(each value and mean, which ranking a cutoff reads), and the harness's own reader's refusals (the audit adds them to
`mutations.MUTATIONS`)."""

from mutations import Mutation

V = "harness/validator/"
RUN_FILE = ("test_validate/test_run_file_checks.py",)
TINY = ("test_eval/test_evaluate_run_file.py",)
CHOSEN = ("test_validate/test_chosen_measures.py",)

MUTATIONS_RUN_FILES: tuple[Mutation, ...] = (
    Mutation("VR01", V + "ranking/run_file.py", "key=lambda pair: pair[0].encode(\"utf-8\"), reverse=True)",
             "key=lambda pair: pair[0].encode(\"utf-8\"))", RUN_FILE),
    Mutation("VR02", V + "ranking/check_run_file.py", "    if found != expected:", "    if False:", RUN_FILE),
    Mutation("VR03", V + "ranking/check_run_file.py", "if sha256_bytes(data) != part[\"sha256\"] or ",
             "if False and ", RUN_FILE),
    Mutation("VR04", V + "ranking/check_run_file.py", "        if pairs != ranking[:DEPTH]:",
             "        if False:", CHOSEN),
    Mutation("VR05", V + "core/report.py", "        if not ranking:\n            return \"\"",
             "        if True:\n            return \"\"", TINY),
    Mutation("VR06", V + "core/modes.py", "    return DESCENDING if mode in LANES and not LANES[mode] else ASCENDING",
             "    return ASCENDING", RUN_FILE + TINY),
    Mutation("VR07", V + "ranking/run_file.py", "        if len(parts) != 6:", "        if len(parts) < 5:", RUN_FILE),
    Mutation("VR08", "harness/systems/runfile/formats.py",
             "        earlier = seen.setdefault((query, document), number)\n        if earlier != number:",
             "        earlier = number\n        if earlier != number:", TINY),
    Mutation("VR09", "harness/systems/runfile/formats.py", "        if query not in self.queries:",
             "        if False:", TINY),
    Mutation("VN01", V + "rows/check_chosen.py", "    if measure.k <= top_k:", "    if True:", CHOSEN),
    Mutation("VN02", V + "rows/check_chosen.py",
             "        if not ir_metrics.close(expected, stated[measure.name]):", "        if False:", CHOSEN),
    Mutation("VN03", V + "rows/check_chosen.py", "    report.expect(\"aggregate.measures\", not wrong and",
             "    report.expect(\"aggregate.measures\", True or", CHOSEN),
    Mutation("VN04", V + "retrieval/named_measures.py",
             "        return len(found) / len(top) if measure.k is None else len(found) / measure.k",
             "        return len(found) / len(top)", CHOSEN),
    Mutation("VN05", V + "comparison/comparison_inputs.py",
             "                    columns[measure.name].append(chosen_value(measure, row, top_k, conventions))",
             "                    columns[measure.name].append(chosen_value(measure, row, 100, conventions))",
             ("test_eval/test_compare_measures.py", "test_eval/test_chosen_compared_depth.py",
              "test_validate/test_chosen_compared_deep.py")),
)

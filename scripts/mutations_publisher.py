"""The mutations of the checks that keep the publisher's word from reading as PASS: the dataset named by its content
(`corpus.name`, `dataset.named`), the source state the run ledger binds (`ledger.run`) and `source.clean` attested,
another record's earlier looks said, and the harness's own refusal of a contract going by a shipped dataset's name
(the audit adds them to `mutations.MUTATIONS`)."""

from mutations import Mutation

V = "harness/validator/"
NAMED = ("test_validate/test_named_by_content.py", "test_validate/test_dataset_named.py")
BOUND = ("test_validate/test_source_bound.py",)
LOOKS = ("test_eval/test_heldout_record.py::test_looks_at_the_dataset_in_another_record_here_are_said",)

MUTATIONS_PUBLISHER: tuple[Mutation, ...] = (
    Mutation("VP01", V + "dataset/collection_name.py", "report.expect(CHECK, not clashing,",
             "report.expect(CHECK, True,", NAMED),
    Mutation("VP02", V + "dataset/collection_name.py", "if name in taken and name not in allowed]",
             "if name in taken and name in allowed]", NAMED),
    Mutation("VP03", V + "dataset/named.py", "    if own and wanted in pinned_names():",
             "    if own and wanted not in pinned_names():", NAMED),
    Mutation("VP04", V + "dataset/named.py", 'and dataset.get("established"):', ":", NAMED),
    Mutation("VP05", V + "dataset/check_dataset.py", '"established": not problems and not pins.archive_only}',
             '"established": not pins.archive_only}', NAMED),
    Mutation("VP06", V + "history/check_history.py",
             ', "source_sha256": sha256_canonical(ctx.receipt["source"])}', "}", BOUND),
    Mutation("VP07", V + "receipt/check_source.py", '        report.attest("source.clean", f"the publisher',
             '        report.ok("source.clean", f"the publisher', BOUND),
    Mutation("VP08", V + "receipt/check_source.py", "    dirty = dirty + _system_tree_dirty(ctx)\n    if dirty:",
             "    dirty = dirty + _system_tree_dirty(ctx)\n    if not dirty:", BOUND),
    Mutation("VP09", V + "history/check_looks.py", "    if not earlier:\n        return \"\"",
             "    if True:\n        return \"\"", LOOKS),
    Mutation("VP10", "harness/corpus/contract.py", "    for name in (contract.name, contract.namespace):",
             "    for name in (contract.namespace,):",
             ("test_validate/test_named_by_content.py::test_the_harness_refuses_a_contract_going_by_a_shipped_datasets_name",)),
)

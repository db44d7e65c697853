"""The mutations `mutation_audit.py` applies, one at a time: the file, the exact original text (found once), its
replacement, and the tests that should fail with it. Decisions only: comparisons, conditions, branches, checks,
bounds, keys and constants of the code that decides a verdict. `equivalent` says why a mutation that survives
changes no behaviour a test could see."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutation:
    ident: str
    path: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    equivalent: str = ""


V = "harness/validator/"
E = "harness/evaluation/"
P = "harness/systems/plugin/"
V_PAIRING = ("test_validate/test_systems_comparison.py::test_the_pairing_rule",)
V_HYPOTHESES = ("test_validate/test_systems_hypotheses.py",)
V_SYSTEMS = ("test_validate/test_systems_comparison.py", "test_validate/test_systems_forgeries.py")
V_STATS = ("test_validate/test_comparison_rules.py", "test_eval/test_paired_statistics.py",
           "test_validate/test_comparison.py")
DATASET = ("test_validate/test_dataset_derivation.py", "test_validate/test_dataset_pins.py")
METRICS = ("test_validate/test_ir_metrics_trec.py",)
MEASURES = ("test_validate/test_measures.py",)
VERDICTS = ("test_validate/test_verdict_refusals.py", "test_validate/test_stored_verdicts.py")
RE_EMBEDDING = ("test_validate/test_verdict_refusals.py", "test_validate/test_re_embedding_kept.py")
E_HYPOTHESES = ("test_eval/test_hypothesis_reading.py",)
E_SYSTEMS = ("test_eval/test_systems_comparison.py",)
MODELS = ("test_validate/test_models_compared.py",)
E_STATS = ("test_eval/test_paired_statistics.py",)
E_ONE_SIDED = V_ONE_SIDED = ("test_eval/test_one_sided_statistics.py",)
LOOKS = ("test_eval/test_record_rules.py", "test_eval/test_heldout_record.py", "test_eval/test_looks_per_dataset.py")
LEDGER = ("test_eval/test_freeze.py",)
RULES = ("test_eval/test_search_rule_messages.py::test_each_broken_rule_is_named_with_its_fix",
         "test_eval/test_search_rule_messages.py::test_ill_formed_lane_statistics_fail_the_query",
         "test_eval/test_search_rule_messages.py::test_answers_that_keep_the_rules_pass")
ISOLATION = ("test_eval/test_plugin_isolation.py::test_the_environment_is_declared_bound_by_digest_and_never_written",)
SETTLED_V = ("test_validate/test_settled_digests.py",)
SETTLED_H = ("test_eval/test_settled_hashing.py",)
HELDOUT = ("test_validate/test_heldout_record_checks.py",)
BUNDLE_DATASET = ("test_validate/test_bundle_reader.py::test_the_readers_dataset_is_held_to_every_artifact",)
UNKNOWN_MEASURES = ("test_validate/test_measures.py::test_an_unknown_convention_is_refused_never_computed_as_another",)
FUSION_BOUNDS = ("test_validate/test_fusion_bounds.py",)
CARRIED = ("test_validate/test_bundle_manifest.py", "test_validate/test_bundle_inputs.py",
           "test_validate/test_check_coverage.py")
DEEP = ("test_validate/test_depth_deep.py",)
MANIFEST = ("test_validate/test_bundle_manifest.py",)
INSTALLED = ("test_validate/test_installed_record.py",
             "test_eval/test_installed_distribution.py::test_the_validator_reads_the_installed_record_file_by_file")
WORKER = ("test_eval/test_plugin_worker.py::test_a_systems_standard_input_is_not_the_harnesss_request_stream",
          "test_eval/test_plugin_worker.py::test_what_a_system_prints_stays_off_the_protocol")

MUTATIONS: tuple[Mutation, ...] = (
    # harness/validator/comparison: the pairing rule, each hypothesis's status, reason and result, the statistics
    Mutation("VC01", V + "comparison/systems_pairs.py", "if a == b or chosen]", "if a == b and chosen]", V_PAIRING),
    Mutation("VC02", V + "comparison/systems_pairs.py", "for j in range(1, len(runs))", "for j in range(2, len(runs))",
             V_PAIRING),
    Mutation("VC03", V + "comparison/systems_pairs.py", "started > created_at:", "started >= created_at:",
             V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC04", V + "comparison/systems_pairs.py", "if when <= until])", "if when < until])",
             V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC05", V + "comparison/systems_pairs.py", 'if split != "heldout":', 'if split == "calibration":',
             V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC06", V + "comparison/systems_pairs.py", "pairs[pairs.index((b, a))] = (a, b)",
             "pairs[pairs.index((b, a))] = (b, a)", V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC07", V + "comparison/systems_hypothesis.py", 'if comparison["status"] != status:',
             'if comparison["status"] != status and status == "exploratory":', V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC08", V + "comparison/systems_hypothesis.py",
             'wrong = sorted(key for key in expected if key != "result" and expected[key] != stated[key])',
             'wrong = sorted(key for key in expected if key not in ("result", "reason") and expected[key] != '
             'stated[key])', V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC09", V + "comparison/systems_hypothesis.py", '    if declaration["test"] == "randomization":',
             "    if True:", V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC10", V + "comparison/systems_hypothesis.py", '"a_less": mean < 0', '"a_less": mean > 0',
             V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC11", V + "comparison/systems_hypothesis.py", '"supported": significant and direction}',
             '"supported": significant}', V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC16", V + "comparison/systems_hypothesis.py", 'greater = declaration["direction"] == "a_greater"',
             "greater = True", V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC17", V + "comparison/systems_hypothesis.py",
             "adjusted = paired_stats.holm([1.0 if p is None else p for p in p_values])",
             "adjusted = [1.0 if p is None else p for p in p_values]", V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC18", V + "comparison/systems_hypothesis.py", "significant = decided is not None and decided < "
             "family.alpha", "significant = p is not None and p < family.alpha", V_HYPOTHESES + V_SYSTEMS),
    Mutation("VC19", V + "comparison/paired_stats.py", "else permuted <= total + margin",
             "else permuted <= total - margin", V_ONE_SIDED),
    Mutation("VC20", V + "comparison/paired_stats.py", "toward = t > 0.0 if greater else t < 0.0", "toward = t > 0.0",
             V_ONE_SIDED),
    Mutation("VC12", V + "comparison/comparison_stats.py",
             ' or procedure.get("permutations", 0) < MIN_PERMUTATIONS:', ":", V_STATS),
    Mutation("VC13", V + "comparison/comparison_stats.py",
             '\n            and mine["wtl"] == [stated["wins"], stated["ties"], stated["losses"]])', ")", V_STATS),
    Mutation("VC14", V + "comparison/systems_inputs.py", "if named_sha256 is not None and named_sha256 != run.freeze",
             "if False and named_sha256 != run.freeze", V_SYSTEMS),
    Mutation("VC15", V + "comparison/systems_inputs.py",
             'if not record["freeze_sha256"] == freeze_digest(record) == recorded["freeze_sha256"]:',
             'if not record["freeze_sha256"] == recorded["freeze_sha256"]:', V_SYSTEMS),
    Mutation("VC21", V + "comparison/systems_data.py", "for key in DIGESTS.values() if found[key] != wanted[key]]",
             "for key in DIGESTS.values() if False]", (*MODELS, "test_validate/test_systems_coverage.py")),
    Mutation("VC22", V + "comparison/systems_data.py",
             'if _at(first, "corpus", "fixture_sha256") == _at(other, "corpus", "fixture_sha256"):', "if True:",
             MODELS),
    Mutation("VC23", V + "comparison/systems_data.py",
             'if read.get("fixture_sha256") != _at(arm.receipt, "corpus", "fixture_sha256"):', "if False:",
             ("test_validate/test_systems_forgeries.py",)),
    # harness/validator/dataset: the pins, the content's digests, the archive's re-derivation, derive_pins
    Mutation("VD01", V + "dataset/check_dataset.py",
             'report.equal("corpus.ir_datasets_id", pins.ir_datasets_id, receipt["corpus"]["ir_datasets_id"],',
             'report.equal("corpus.ir_datasets_id", pins.ir_datasets_id, receipt["corpus"]["ir_datasets_id"] '
             'if pins.ir_datasets_id is None else pins.ir_datasets_id,', DATASET),
    Mutation("VD02", V + "dataset/check_dataset.py", 'if digests["qrels"] != pins.content_sha256["qrels"]:',
             "if False:", DATASET),
    Mutation("VD03", V + "dataset/check_dataset.py", 'if digests["documents"] != pins.content_sha256["documents"]:',
             'if digests["documents"] == pins.content_sha256["documents"]:', DATASET),
    Mutation("VD04", V + "dataset/check_dataset.py", 'fixture_contract and receipt["profile"] == fixture["profile"]',
             'fixture_contract or receipt["profile"] == fixture["profile"]', DATASET),
    Mutation("VD05", V + "dataset/check_dataset.py", "pinned = not content_pinned or digests ==",
             "pinned = True or digests ==", DATASET,
             "on pinned content the texts are derived from the pinned documents and queries under the pinned "
             "ceiling, so their digests are the pinned ones whenever the pins are what their archive gives (which "
             "test_the_tiny_pins_are_what_the_tiny_archive_gives holds); the comparison can never be false there"),
    Mutation("VD06", V + "dataset/check_dataset.py", "explicit = archive is not None", "explicit = False", DATASET),
    Mutation("VD07", V + "dataset/check_dataset.py", 'if found != pins.member_files[name]["sha256"]}',
             'if found == pins.member_files[name]["sha256"]}', DATASET),
    Mutation("VD08", V + "dataset/derive_pins.py", 'pins["qrels"] = content.qrels', 'pins["qrels"] = template.qrels',
             DATASET),
    Mutation("VD09", V + "dataset/derive_pins.py",
             'pins["content_sha256"] = {**content.digests(), **semantic_digests(semantic_texts(content, ceiling))}',
             'pins["content_sha256"] = template.content_sha256', DATASET),
    Mutation("VD10", V + "dataset/content.py", 'if part)[:ceiling]', 'if part)[:ceiling + 1]', DATASET),
    Mutation("VD11", V + "dataset/content.py", '"test_qrel_pairs": sum(len(judged) for judged in self.qrels.values())',
             '"test_qrel_pairs": len(self.qrels)', DATASET),
    # harness/validator/verdicts: what a stored verdict or re-embedding must match to be reused, the key
    Mutation("VV01", V + "verdicts/store.py",
             'if document["validator"]["environment_sha256"] != identity["environment_sha256"]:', "if False:",
             VERDICTS),
    Mutation("VV02", V + "verdicts/store.py", "if not sealed(document, key):", "if sealed(document, key) is None:",
             VERDICTS),
    Mutation("VV03", V + "verdicts/store.py", 'ACCEPTED = {"full": ("full",),',
             'ACCEPTED = {"full": ("full", "sample"),', VERDICTS),
    Mutation("VV04", V + "verdicts/store.py",
             ' or {**stated, "embedding": None} != {\n            **options, "embedding": None}:', ":", VERDICTS),
    Mutation("VV05", V + "verdicts/key.py", "found.st_mode & 0o077", "found.st_mode & 0o007", VERDICTS),
    Mutation("VV06", V + "verdicts/key.py", "if len(key) < 32:", "if len(key) < 16:", VERDICTS),
    Mutation("VV07", V + "verdicts/key.py", "hmac.compare_digest(stated, seal(document, key))",
             "stated.startswith(SEAL_PREFIX)", VERDICTS),
    Mutation("VV08", V + "verdicts/inputs.py", "if digest != stored[\"roles\"].get(role))",
             "if digest != stored[\"roles\"].get(role) and role != \"freeze\")", VERDICTS),
    Mutation("VV09", V + "verdicts/re_embedding.py",
             ' \\\n            or document.get("material") != key_material:', ":", RE_EMBEDDING),
    Mutation("VV10", V + "verdicts/identity.py", 'if p.suffix in {".py", ".json"}', 'if p.suffix in {".py"}',
             VERDICTS),
    # harness/validator/retrieval and rows: the metric conventions, recomputed under the pins and stated in the receipt
    Mutation("VM01", V + "retrieval/ir_metrics.py",
             'return float(grade) if self.ndcg_gain == "grade" else 2.0 ** grade - 1.0', "return 2.0 ** grade - 1.0",
             METRICS),
    Mutation("VM02", V + "retrieval/ir_metrics.py", "if grade <= 0:", "if grade == 0:", METRICS),
    Mutation("VM03", V + "retrieval/ir_metrics.py",
             'divisor = len(relevant) if conventions.map_denominator == "relevant" else min(len(relevant), 10)',
             "divisor = min(len(relevant), 10)", METRICS),
    Mutation("VM04", V + "rows/measures.py", 'report.equal("receipt.measures", measured.conventions.record(),',
             'report.equal("receipt.measures", ctx.receipt["measures"],', MEASURES),
    Mutation("VM05", V + "rows/measures.py", "return pinned_conventions(dataset_of(ctx))",
             'return Measured(Conventions.of(ctx.receipt["measures"]), "the receipt\'s")', MEASURES),
    # harness/evaluation/comparison: pairing, hypotheses, statistics, the runs' and requests' checks
    Mutation("EC01", E + "comparison/pairing.py", "return a.run != b.run and (", "return (", E_SYSTEMS,
             "arm_pairs pairs an arm of one run (j) with an arm of another (i != j), and check_runs refuses a name "
             "given twice, so a.run != b.run always holds where _paired is asked"),
    Mutation("EC02", E + "comparison/pairing.py", "or a.chosen or b.chosen)", "or a.chosen and b.chosen)",
             E_SYSTEMS),
    Mutation("EC03", E + "comparison/hypotheses.py", 'if split != "heldout":', 'if split == "calibration":',
             E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC04", E + "comparison/hypotheses.py", "if not (started := _started(run, arm.mode)) > created]",
             "if not (started := _started(run, arm.mode)) >= created]", E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC05", E + "comparison/hypotheses.py", "seen = sum(at <= time for", "seen = sum(at < time for",
             E_HYPOTHESES + LOOKS),
    Mutation("EC06", E + "comparison/hypotheses.py", "result[result.index((b, a))] = (a, b)",
             "result[result.index((b, a))] = (b, a)", E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC07", E + "comparison/hypothesis_results.py", '    if declaration["test"] == "randomization":',
             "    if True:", E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC08", E + "comparison/paired_statistics.py", "min(1.0, (m - step) * p_values[i])",
             "min(1.0, (m - step + 1) * p_values[i])", E_STATS),
    Mutation("EC09", E + "comparison/paired_statistics.py", "count_nonzero(permuted >= observed - TIE_MARGIN)",
             "count_nonzero(permuted >= observed + TIE_MARGIN)", E_STATS),
    Mutation("EC10", E + "comparison/run_specs.py", "if len(runs) < 2:", "if len(runs) < 1:",
             ("test_eval/test_systems_comparison.py::test_the_set_of_runs_is_checked", *E_SYSTEMS)),
    Mutation("EC11", E + "comparison/systems_inputs.py",
             "if split in HELD_OUT_SPLITS and _named_freeze(run.inputs) == {None}:",
             'if split == "heldout" and _named_freeze(run.inputs) == {None}:', E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC12", E + "comparison/artifact.py", "if self.seed < 0 or self.seed >= 2**63:", "if self.seed < 0:",
             E_STATS),
    Mutation("EC13", E + "comparison/experiment.py", "if split in HELD_OUT_SPLITS:", 'if split == "heldout":',
             E_HYPOTHESES + E_SYSTEMS),
    Mutation("EC22", E + "comparison/fixtures_compared.py",
             'if first["corpus"]["fixture_sha256"] == other["corpus"]["fixture_sha256"]:', "if True:", MODELS),
    Mutation("EC23", E + "gates/baseline_content.py", "    if differences:\n", "    if False:\n", MODELS),
    Mutation("EC24", E + "gates/baseline_content.py", "    if frozen == fixture_sha256:\n", "    if True:\n", MODELS),
    # harness/evaluation/history: the run ledger's turn and freeze gates, the held-out record's counts
    Mutation("EC16", E + "comparison/paired_statistics.py", "else permuted <= observed + TIE_MARGIN",
             "else permuted <= observed - TIE_MARGIN", E_ONE_SIDED),
    Mutation("EC17", E + "comparison/student_t.py", "return tail if (t > 0.0) == greater or t == 0.0 else 1.0 - tail",
             "return tail", E_ONE_SIDED),
    Mutation("EC18", E + "comparison/hypothesis_results.py",
             "adjusted = stats.holm([1.0 if p is None else p for p in p_values])",
             "adjusted = [1.0 if p is None else p for p in p_values]", E_HYPOTHESES),
    Mutation("EC19", E + "comparison/hypothesis_results.py", "significant = holm_p is not None and holm_p < alpha",
             "significant = p is not None and p < alpha", E_HYPOTHESES),
    Mutation("EC20", E + "comparison/hypothesis_results.py", 'greater = declaration["direction"] == "a_greater"',
             "greater = True", E_HYPOTHESES),
    Mutation("EH01", E + "history/ledger.py", 'if latest.event.get("freeze_sha256") != freeze_sha256:', "if False:",
             LEDGER),
    Mutation("EH02", E + "history/ledger.py", "and e.position < latest.position)", "and e.position > latest.position)",
             LEDGER),
    Mutation("EH03", E + "history/ledger.py", 'earlier = _first_run(connection, "split IN (?, ?)", HELD_OUT)',
             'earlier = _first_run(connection, "split = ?", HELD_OUT[:1])', LEDGER),
    Mutation("EH04", E + "history/ledger.py", '"mode = ? AND split = ?", (mode, split))',
             '"mode = ? AND split = ?", (mode, "calibration"))', LEDGER),
    Mutation("EH05", E + "history/heldout_record.py",
             'return bool(entry["dataset_sha256"] == dataset_sha256)',
             'return bool(entry.get("fixture_sha256") == fixture_sha256)', LOOKS),
    Mutation("EH06", E + "history/heldout_record.py",
             "others = {configuration(e) for e in earlier} - {configuration(entry)}",
             "others = {configuration(e) for e in earlier}", LOOKS),
    Mutation("EH07", E + "history/heldout_record.py", 'if cache and Path(cache).is_absolute() else',
             "if cache else", LOOKS),
    Mutation("EH08", E + "history/heldout_record.py", 'sha256_canonical({"dataset": name, "calibration_count": '
             'calibration_count,', 'sha256_canonical({"dataset": name,', LOOKS),
    Mutation("EH09", E + "history/heldout_record.py",
             'return entry.get("system"), entry.get("configuration_sha256"), entry.get("store_sha256")',
             'return entry.get("system"), entry.get("configuration_sha256"), None', LOOKS),
    Mutation("EH10", E + "history/heldout_record.py", '[str(e.get("recorded_at")) for e in earlier])',
             "[])", LOOKS),
    Mutation("EH11", E + "history/ledger.py", "'running')\", (run_id, mode, split, sequence, started_at))",
             "'running')\", (run_id, mode, \"calibration\", sequence, started_at))", LEDGER),
    # harness/systems/plugin: the worker's channel and environment, the rules of search, what a system may be
    Mutation("SP01", P + "worker.py", "    os.dup2(null, 0)\n", "", WORKER),
    Mutation("SP02", P + "environment.py", "return name in ALLOWED or name.startswith(",
             "return True or name.startswith(", ISOLATION),
    Mutation("SP03", P + "environment.py", "if allowed(name) or name in declared}", "if allowed(name)}", ISOLATION),
    Mutation("SP04", P + "rules.py", "if ahead.score < behind.score:", "if ahead.score > behind.score:", RULES),
    Mutation("SP05", P + "rules.py", "ahead.score == behind.score and ahead.doc_id > behind.doc_id",
             "ahead.score == behind.score and ahead.doc_id < behind.doc_id", RULES),
    Mutation("SP06", P + "rules.py", "if len(results) > top_k:", "if len(results) > top_k + 1:", RULES),
    Mutation("SP07", P + "rules.py", "if len(ranks) > 1)", "if len(ranks) > 2)", RULES),
    Mutation("SP08", P + "rules.py", "not 1 <= lane_rank <= depth", "not 0 <= lane_rank <= depth", RULES),
    Mutation("SP09", P + "rules.py", "or numbers[3] < 0)", "or numbers[3] < -1)", RULES),
    Mutation("SP10", P + "rules.py", "if not modes.mode(mode).fusion and result.lanes:",
             "if modes.mode(mode).fusion and result.lanes:", RULES),
    Mutation("SP11", P + "rules.py", 'fusion["method"] == "rrf" and result.score <= 0',
             'fusion["method"] == "rrf" and result.score < 0', RULES),
    Mutation("SP12", P + "loading.py", "set(offered) <= set(SEARCHED)", "set(offered) >= set(SEARCHED)",
             ("test_eval/test_plugin_system.py",)),

    # the settled-file rule, the held-out record's checks, the installed identity, the bundle's manifest and carried
    # inputs, --dataset, the metric conventions, the fusion's bounds and the depth-100 cut
    Mutation("MU01", V + "core/settled.py", "return seen is not None and seen[3] < time.time_ns() - SETTLED_NS",
             "return seen is not None and seen[2] < time.time_ns() - SETTLED_NS", SETTLED_V),
    Mutation("MU02", V + "core/settled.py", "if settled(seen) and stat_of(key) == seen:", "if stat_of(key) == seen:",
             SETTLED_V),
    Mutation("MU03", "harness/hashing.py", "return seen is not None and seen[3] < time.time_ns() - SETTLED_NS",
             "return seen is not None and seen[2] < time.time_ns() - SETTLED_NS", SETTLED_H),
    Mutation("MU04", "harness/hashing.py", "if seen is not None and settled(seen) and _stat(key) == seen:",
             "if seen is not None and _stat(key) == seen:", SETTLED_H),
    Mutation("MU05", V + "history/check_looks.py", "    if entry.digest != digest:\n", "    if False:\n", HELDOUT),
    Mutation("MU06", V + "history/check_looks.py",
             "differing = sorted(k for k, v in expected.items() if entry.value.get(k) != v)",
             'differing = sorted(k for k, v in expected.items() if k != "machine_id" and entry.value.get(k) != v)',
             HELDOUT),
    Mutation("MU07", V + "history/check_looks.py", '"run_id": receipt["run"]["run_id"], "host": block["host"], ',
             '"run_id": receipt["run"]["run_id"], ', HELDOUT),
    Mutation("MU08", V + "history/check_looks.py", 'if block["earlier_looks_at"] != times:',
             'if len(block["earlier_looks_at"]) != len(times):', HELDOUT),
    Mutation("MU09", V + "history/check_looks.py",
             'stated = (block["looks_before"], block["other_configurations_before"])',
             'stated = (block["looks_before"], counted[1])', HELDOUT),
    Mutation("MU10", V + "history/check_looks.py",
             'if (block["dataset"]["name"], block["dataset"]["sha256"]) != (name, key):',
             'if block["dataset"]["name"] != name:', HELDOUT),
    Mutation("MU11", V + "history/looks_record.py",
             'return sha256_canonical({"dataset": name, "calibration_count": calibration_count,',
             'return sha256_canonical({"dataset": name,', HELDOUT),
    Mutation("MU12", V + "history/looks_record.py",
             "elif recorded_previous != previous or not isinstance(text, str) or chain_digest(previous, text) != "
             "digest:",
             "elif recorded_previous != previous or not isinstance(text, str):", HELDOUT),
    Mutation("MU13", V + "history/looks_record.py", "            if position != due:\n",
             "            if False:\n", HELDOUT),
    Mutation("MU14", V + "history/check_looks.py", 'report.expect(NAME, block is None, "a calibration or parity run',
             'report.expect(NAME, True, "a calibration or parity run', HELDOUT),
    Mutation("MU15", V + "core/installed.py", "        elif sha256_file(path) != recorded:\n", "        elif False:\n",
             INSTALLED),
    Mutation("MU16", V + "core/installed.py", 'if algorithm != "sha256" or not encoded:', "if not encoded:",
             INSTALLED),
    Mutation("MU17", V + "bundle_manifest.py", 'if manifest.get("manifest_sha256") != sha256_canonical(files):',
             "if False:", MANIFEST),
    Mutation("MU18", V + "bundle_reader.py", "([FAILED] if problems or not verdicts else [ELIGIBLE])",
             "([FAILED] if not verdicts else [ELIGIBLE])", MANIFEST),
    Mutation("MU19", V + "bundle_reader.py", "            check_named(verdict.report, options.dataset)\n",
             "            pass\n", BUNDLE_DATASET),
    Mutation("MU20", V + "dataset/named.py", "report.expect(CHECK, names == [wanted],",
             "report.expect(CHECK, wanted in names,", ("test_validate/test_dataset_named.py",)),
    Mutation("MU21", V + "retrieval/ir_metrics.py",
             "if self.ndcg_gain not in NDCG_GAINS or self.map_denominator not in MAP_DENOMINATORS:",
             "if self.map_denominator not in MAP_DENOMINATORS:", UNKNOWN_MEASURES),
    Mutation("MU22", V + "retrieval/ir_metrics.py",
             "if self.ndcg_gain not in NDCG_GAINS or self.map_denominator not in MAP_DENOMINATORS:",
             "if self.ndcg_gain not in NDCG_GAINS:", UNKNOWN_MEASURES),
    Mutation("MU23", V + "retrieval/ir_metrics.py",
             'if not isinstance(stated, dict) or set(stated) != {"ndcg_gain", "map_denominator"}:',
             "if not isinstance(stated, dict):", UNKNOWN_MEASURES),
    Mutation("MU24", V + "retrieval/fusion.py", "abs(found - wanted) > 3.0 * tolerance + ",
             "abs(found - wanted) > 10.0 * tolerance + ", FUSION_BOUNDS),
    Mutation("MU25", V + "rows/check_fusion.py", "abs(recomputed - reported) <= 2.0 ** -23 * abs(recomputed)",
             "abs(recomputed - reported) <= 2.0 ** -20 * abs(recomputed)", FUSION_BOUNDS),
    Mutation("MU26", V + "rows/check_fusion.py", "if rank is not None and not 1 <= rank <= depth:",
             "if rank is not None and not 1 <= rank <= depth + 1:", FUSION_BOUNDS),
    Mutation("MU27", V + "rows/check_fusion.py", 'if reported != result["score"]:', "if False:", FUSION_BOUNDS),
    Mutation("MU28", V + "bundle_reader.py", "stores[run] = carried if carried.is_dir() or own is None else own",
             "stores[run] = own if own is not None else carried", CARRIED),
    Mutation("MU29", V + "bundle_reader.py", "if carried.is_dir() or own is not None:", "if carried.is_dir():",
             CARRIED),
    Mutation("MU30", V + "system/check_store.py",
             'return {name: part_digest(directory / part["path"]) for name, part in manifest["parts"].items()}',
             'return {name: part["sha256"] for name, part in manifest["parts"].items()}', CARRIED),
    Mutation("MU31", V + "receipt/check_bindings.py",
             'fixture["vectors"]["sha256"], sha256_file(sidecar) if is_file(sidecar)',
             'fixture["vectors"]["sha256"], fixture["vectors"]["sha256"] if is_file(sidecar)', CARRIED),
    Mutation("MU32", V + "system/check_store.py", 'report.expect("store.vectors", same and not differing,',
             'report.expect("store.vectors", same,', CARRIED),
    Mutation("MU33", V + "replay/check_depth_replay.py", "ranked = self._lane(name, row, DEPTH, reported)",
             "ranked = self._lane(name, row, 10, reported)", DEEP),
    Mutation("MU34", V + "replay/check_depth_replay.py", "ranked = self._lane(name, row, DEPTH, reported)",
             "ranked = self._lane(name, row, DEPTH - 1, reported)", DEEP),
    Mutation("MU35", V + "replay/check_depth_replay.py",
             "for _, i in replayed_fusion(lanes, self.rrf_k, DEPTH, self.replay)]",
             "for _, i in replayed_fusion(lanes, self.rrf_k, DEPTH - 1, self.replay)]", DEEP),
    Mutation("MU36", V + "replay/check_depth_replay.py",
             'name = "lexical" if has_lane(self.mode, "lexical") else "dense"', 'name = "dense"', DEEP),
    Mutation("MU37", V + "rows/check_depth.py",
             'expected = ir_metrics.compute_depth(row["depth_ranking"]["doc_ids"], row["qrels"], conventions)',
             'expected = ir_metrics.compute_depth(row["depth_ranking"]["doc_ids"][:10], row["qrels"], conventions)',
             DEEP),
    Mutation("MU38", V + "replay/check_depth_replay.py", "lanes = [self._lane(name, row, self.depth,",
             "lanes = [self._lane(name, row, DEPTH // 10,", DEEP),
)

"""Every check the validator can report, with what its failure means. A name not listed here is a fault.

test_validate/test_check_coverage.py holds, for each name, an artifact that violates exactly that check
and asserts that the validator fails it: a check that can never fail cannot stay in this list.
"""

CHECKS: dict[str, str] = {
    "inputs": "an artifact the validator was pointed at is missing",
    "json.strict": "an artifact is not strict JSON (NaN, Infinity, an overflowing number, a duplicate key)",
    "aggregate.schema": "the aggregate does not match its closed schema (names the JSON path)",
    "rows.sha256": "the rows file is not the one the aggregate names by digest",
    "rows.count": "the aggregate's row count is not the number of rows",
    "rows.schema": "a row does not match its closed schema (names the JSON path)",
    "rows.identity": "a row's schema id, mode or split is not the aggregate's",
    "rows.results": "results and ranked ids disagree, or ranks, uniqueness or top_k are broken",
    "rows.metrics": "a row's metrics are not the metrics of its ranking and qrels",
    "rows.search_receipts": "a search receipt's digest, or what it binds, does not recompute",
    "rows.request_ids": "request ids are not unique or do not follow <run_id>/<query_id>",
    "rows.exact_backend": "a dense lane does not record an exact scan of every document",
    "rows.order": "results are not in score order with the doc-id tie rule",
    "rows.fusion": "a fused score is not the declared fusion of its lane evidence (rrf: its lane ranks; convex: its "
                   "lane scores and the lanes' recorded statistics), a row's fusion or statistics are not the "
                   "declared ones or are malformed, or fused order is broken",
    "rows.depth_ranking": "some rows carry a depth-100 ranking and others not (or any, when the system declares "
                          "none), or one is malformed: more than 100 or repeated documents, scores out of order, a "
                          "failed query or depth search that ranks documents or does not say why",
    "rows.depth_metrics": "a row's Recall@100 or nDCG@100 is not the metric of its depth-100 ranking and qrels",
    "aggregate.depth": "the Recall@100 or nDCG@100 mean, the failed depth searches or the depth-100 lists not "
                       "beginning with the top-k ranking do not recompute from the rows (or are stated without them)",
    "rows.measures": "a row's measure chosen by name is not that measure of the ranking its cutoff reaches and its "
                     "judgements, a row states other measures than the run chose, or a name is not as ir_measures "
                     "writes it",
    "aggregate.measures": "a chosen measure's mean is not the mean over every row",
    "aggregate.metrics": "a mean is not the mean over every row",
    "receipt.measures": "the metric conventions the receipt states (nDCG gain, MAP@10 divisor) are not those the "
                        "validator's own pins hold for the dataset (trec_eval's for a collection it holds no pins "
                        "for), under which it recomputes every metric",
    "aggregate.latency": "the latency summary does not recompute from the rows",
    "latency.contention": "the contention verdict does not follow from the recorded CPU time, run-queue wait, load "
                          "(or is not \"contention unknown\", naming it, when one of them was not recorded)",
    "aggregate.failures": "the failure count is not the number of failed rows",
    "aggregate.result_counts": "the result-count distribution does not recompute",
    "aggregate.unique_docs": "the unique-document count does not recompute",
    "aggregate.repeated_top1": "the most repeated top-1 document does not recompute",
    "dataset.named": "the dataset the validator established for the artifact (from its fixture and pins, or its "
                     "inputs) is not the one the reader named with --dataset",
    "corpus.fixture": "the fixture is missing or is not the file the receipt names by digest",
    "corpus.schema": "the fixture does not match its closed schema (names the JSON path)",
    "corpus.vectors": "the vector sidecar is not the one the fixture names by digest",
    "corpus.source_hashes": "the receipt's archive digests, counts or builder version are not the fixture's",
    "corpus.payload_hashes": "documents, queries or qrels do not re-hash to the recorded digests, or the receipt "
                             "states other hash definitions than the fixture",
    "corpus.pinned": "the fixture's documents, test queries or judgements are not those of a dataset the validator "
                     "holds pins for (its own digests and judgements, whatever the fixture says of itself)",
    "corpus.contract": "the fixture's contract terms (shape, ceiling, prefixes, top_k, calibration count) are not the "
                       "pinned dataset's",
    "corpus.name": "a collection the validator holds no pins for goes by the name of a dataset it pins (its "
                   "contract's name or namespace), so its run's files read as that dataset's",
    "corpus.ir_datasets_id": "the receipt's ir_datasets id is not the one the validator pins for the fixture's dataset "
                             "(null for a dataset ir_datasets does not hold)",
    "corpus.semantic_text": "a semantic text is not the validator's own derivation under the contract rule",
    "archive.members": "the archive given to re-derive from is unreadable, or a pinned member is not the pinned bytes",
    "archive.content": "a document, test query, judgement or semantic text of the fixture is not what the "
                       "validator reads from the archive",
    "split.contract": "the receipt's contract or calibration count is not the fixture's",
    "split.membership": "the rows are not exactly the split's queries in split order",
    "split.selected_ids": "the selected-id digest does not recompute",
    "split.counts": "total or selected counts do not recompute",
    "rows.query_identity": "a row's query text digest or qrels are not the fixture's",
    "store.live": "the store is missing or its live digest is not the after-run digest",
    "store.manifest": "the store manifest does not match its closed schema",
    "store.parts": "a store part does not re-hash to the receipt's digest",
    "store.unchanged_by_run": "before-run, after-run and built store digests differ",
    "store.mapping_path": "the receipt names a mapping or database other than the store's own",
    "store.mapping": "the mapping does not match its closed schema",
    "store.mapping_coverage": "the mapping does not pair every fixture document with one distinct fact, or names "
                              "another fixture, document count or namespace than the store's",
    "rows.fact_ids": "a result's fact id is not the mapping's for its doc id",
    "store.vectors": "a stored vector is not, byte for byte, the fixture's vector of its document",
    "store.facts": "a fact in the SQLite store differs from its fixture document (title, text, vector, ids)",
    "rows.query_vectors": "a dense lane used another vector than the fixture's for its query",
    "replay.lexical": "a BM25 lane disagrees with the independent replay from the fixture's text",
    "replay.dense": "a dense lane disagrees with the float64 replay over every stored vector",
    "replay.fusion": "a document the replayed fusion certainly ranks inside the cut is missing",
    "ranking.run_file": "a run file's ranking (top k or depth 100) in a row is not the run file's, read again in "
                        "trec_eval's order; or the run file the receipts bind is not found, not those bytes, or does "
                        "not read as a run",
    "replay.depth": "a depth-100 ranking disagrees with the replay to depth 100 (a score, a rank, a missing "
                    "document; named by mode, query and rank), or with the live system asked again",
    "receipt.identity": "the receipt's mode or split is not the aggregate's",
    "receipt.embedding": "the receipt's embedding block (model, identity, dimensions, truncation, text rules) or "
                         "text profile is not the fixture's",
    "receipt.exact_backend": "the receipt's dense backend is not exact over every document, or not the one the "
                             "search receipts state",
    "config.sha256": "the configuration digest does not recompute",
    "config.frozen_baseline": "a frozen-baseline switch (sparse, late interaction, ...) is on",
    "config.top_k": "top_k of receipt, configuration and contract disagree",
    "freeze": "a held-out or all-query receipt has no freeze record",
    "freeze.schema": "the freeze record does not match its closed schema",
    "freeze.digest": "the freeze record's digest does not recompute",
    "freeze.recorded": "the receipt names another freeze record",
    "freeze.match": "the run differs from the freeze (configuration, corpus, model, store, split, source)",
    "freeze.history": "the ledger shows the freeze after a held-out run, or an earlier held-out run",
    "heldout.record": "a held-out or all-query receipt names no entry in the per-user held-out record (or a "
                      "calibration receipt names one); or, when the record is on this machine (the file the "
                      "validator finds by its own rule carries the receipt's record id), its chain does not recompute, "
                      "the entry at the receipt's position has another digest or fields (fixture, split, mode, "
                      "system, configuration, store, freeze, run id, host), or the receipt's counts of earlier looks "
                      "at this fixture and of other configurations among them are not the record's (a receipt "
                      "claiming the first look while the record shows earlier ones fails); or the receipt names this "
                      "host and the record here is missing or another",
    "ledger.file": "the receipt's run ledger is missing, unreadable, or not the store's own",
    "ledger.chain": "the run ledger's hash chain does not recompute",
    "ledger.run": "the receipt's run is not the ledger's run at the recorded place (its run number, source or "
                  "configuration digest), or did not complete",
    "history.trials": "the freeze record's count of configurations tried on calibration (distinct configuration "
                      "digests, sweep events, calibration runs, those without a digest, whether the frozen one is "
                      "among them, the last position counted) does not recompute from the run ledger before the "
                      "freeze event, or a sweep event names another split than calibration",
    "executable.interpreter": "the recorded interpreter does not resolve to the recorded digest",
    "source.harness": "the harness source beside the validator (digest, file count) is not the source the run "
                      "recorded",
    "source.git": "the recorded commit is not the checked-out HEAD (not verified without git)",
    "source.distribution": "the installed distribution beside the validator is not the one the run recorded (name, "
                           "version, digest of its RECORD's files), or one of its files is not the one its RECORD "
                           "lists (not verified beside a clone or an editable install)",
    "source.clean": "the run started from a work tree with uncommitted changes, or from an installed distribution "
                    "whose files differed from its RECORD, or under a freeze that recorded the system's own work tree "
                    "dirty",
    "dependencies": "a required dependency version is not recorded",
    "machine.identity": "the machine identity (CPU, cores, OS) is not recorded",
    "profile.contract": "the fixture's text profile is not the pinned contract profile, or the receipt's is not the "
                        "fixture's (a parity run is never a claim)",
    "embeddings.model": "a re-embedded text differs from the fixture's vector beyond the rounding bound",
    "system.source": "the system's source files on disk are not the ones the run recorded",
    "system.modules": "a module the system's process loaded (beyond the standard library, its distributions and the "
                      "harness) no longer re-hashes to the digest the run recorded",
    # The bundle's texts (python -m harness.validator --bundle DIR)
    "texts.figures": "a result figure of CLAIMS.md, report.md, report.html or an export (a metric, query or failure "
                     "count, latency, a comparison's difference, interval, p-value, Holm p or significance word, a "
                     "hypothesis's result, the headline) is not the value of the validated artifact it claims to come "
                     "from at the precision it is shown, is malformed, or stands for a split, mode, run or "
                     "comparison the bundle carries no validated artifact of",
    # A comparison artifact (python -m harness.validator --comparison PATH)
    "comparison.schema": "the comparison is not strict JSON or does not match its closed schema",
    "comparison.inputs": "a rows file or aggregate the comparison names is missing, has another sha256, or does not "
                         "name those rows, that run or that configuration",
    "comparison.rows": "the modes' rows list other queries or another order, disagree with the comparison's count and "
                       "digest or the receipts' split, or state metrics their rankings and qrels do not give",
    "comparison.experiment": "the inputs are not one experiment: another fixture, other judgements for a query, "
                             "another system identity or store, or another freeze (or none for a held-out run)",
    "comparison.procedure": "the stated procedure (generator, draw order, tests, counts, words) is not the one the "
                            "validator implements",
    "comparison.means": "a mode's mean or its bootstrap interval does not recompute from the rows",
    "comparison.statistics": "a difference, interval, randomization count or p-value, t-test, effect size or "
                             "win/tie/loss count does not recompute, or the pairs are not the baseline's",
    "comparison.holm": "a Holm-adjusted p-value or significance call does not recompute from the family's p-values",
    "comparison.inputs_eligible": "an input aggregate is not ELIGIBLE under the validator, or a held-out or all-query "
                                  "comparison records that its inputs were not validated",
    # A comparison between systems (python -m harness.validator --comparison PATH, docs/comparing-systems.md)
    "systems.schema": "the comparison between systems is not strict JSON or does not match its closed schema",
    "systems.inputs": "a run's directory, rows, aggregate or freeze record the comparison names is missing or has "
                      "another sha256; an aggregate does not name those rows, that run, configuration, system, "
                      "fixture or embedding; a freeze record does not hash to its own digest or is not the one its "
                      "run's receipts name; or a run's arms are not its chosen, frozen or present modes, in order",
    "systems.rows": "the arms' rows list other queries or another order, disagree with the comparison's count and "
                    "digest or the receipts' split, or state metrics their rankings and qrels do not give",
    "systems.experiment": "the runs are not one experiment: fixtures of other data (beyond the embedding and text "
                          "profile: the contract, archive, documents, queries, judgements, counts, split rule or "
                          "metric conventions) or other judgements for a query, a run whose arms differ in fixture, "
                          "system, store or freeze, a held-out or all-query run under no freeze, one run given twice, "
                          "or a scope or fixtures sentence that is not what the runs give",
    "systems.statistics": "the stated procedure is not the validator's, or an arm's mean or interval, the pairs the "
                          "rule gives or their order, a pair's statistics or a Holm-adjusted p-value does not "
                          "recompute",
    "systems.hypothesis": "a family of hypotheses a freeze record declares is not listed as declared, or a member's "
                          "status, reason, pair or result (its declared test's one- or two-sided p, its Holm-adjusted "
                          "p over the family, the call at the family's alpha) is not what the rules give; or a pair "
                          "is labelled confirmatory that is not a confirmatory hypothesis's pair, or the reverse",
    "systems.inputs_eligible": "an input aggregate is not ELIGIBLE under the validator against its run's freeze "
                               "record, a held-out or all-query comparison records that its inputs were not validated, "
                               "or the recorded rule or verdicts are not the validator's",
    "systems.data": "a run's fixture, as the validator read it to validate that run's aggregates, holds other "
                    "documents, queries or judgements (their digests recomputed from the fixture) than the comparison "
                    "records, or another contract than another run's, or was not read at all",
}

ATTESTATIONS: dict[str, str] = {
    "ranking.attested": "the rankings were made outside the harness (a run file): its bytes are re-read and every "
                        "metric recomputed, but how they were made, and by whom, is the publisher's word",
    "executable": "the interpreter a receipt names is not on this machine (no output directory of the run places it, "
                  "as on a reader's machine): its digest is the run's statement",
    "system.source": "the system's source is not on this machine: its digest is the run's statement",
    "system.modules": "a module the system's process loaded is not on this machine: its digest is the run's statement",
    "system.runtime": "the installed distributions (by version) and the declared environment variables (by the sha256 "
                      "of their values) of the system's process are the run's statement",
    "system.attested": "what a system holds beyond its local files (a server's collection) is its own statement",
    "replay.through_system": "a lane of the system's own engine was replayed by asking the live system again: the "
                             "rows are its answers, but nothing here recomputed them independently",
    "source.clean": "that the harness's work tree (or its installed files) and a system's own work tree were clean "
                    "when the run started is the run's statement, bound to its ledger event, not recomputable",
    "latency": "per-query latency was measured by the run on its machine; it cannot be re-measured afterwards",
    "machine": "the machine a receipt names (CPU, cores, memory, OS, BLAS threads) is the run's own statement",
    "history": "the run ledger lives beside the store on the run's machine; whoever can write the store can "
               "rewrite it, so its history is evidence checked for consistency, not proof",
    "history.trials": "how many configurations were tried on calibration is counted from the run ledger as "
                      "presented: consistent with the freeze record, complete only by the publisher's word (an event "
                      "removed and the rest rechained leaves a consistent history)",
    "heldout.looks": "how many looks and configurations saw this fixture's held-out split comes from the per-user "
                     "record of the machine that ran it: counted from that record when it is on this machine, else "
                     "the receipt's statement; whoever can write the record can rewrite it",
}

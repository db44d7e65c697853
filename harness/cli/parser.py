"""The command line's parser: every command's options and help, built from plain constants only, so that `--help` and
a usage error import no corpus, embedder, system or statistics (the handlers are imported once a command is parsed:
harness.cli.app)."""

import argparse

from harness.cli import publish_parsers
from harness.cli.parsing.dataset import add_dataset_option
from harness.cli.parsing.errors import Parser
from harness.cli.parsing.hypothesis import add_hypothesis_options
from harness.cli.parsing.paths import path_argument, text_argument
from harness.cli.parsing.subcommands import Commands, command
from harness.cli.parsing.system import config_option, system_option
from harness.cli.scaffold import new_system
from harness.cli.version import VersionAction
from harness.corpus.deadline import DEADLINE_VARIABLE
from harness.corpus.split import SPLITS
from harness.embedding.embedders.backends import BACKENDS
from harness.embedding.profiles import PROFILES
from harness.modes import MODES
from harness.typed_commands import validator_command

DESCRIPTION = """\
Measure how well a retrieval system (the built-in one, or one of your own given
to --system) finds the abstracts that answer SciFact's claims (or another
BEIR-layout dataset's queries), with receipts that bind every number to its
inputs, and held-out queries looked at only after the configuration is frozen.

The order of a publishable result (each step refuses to run out of turn, and
ends by printing the next command):
  build                    the corpus fixture: documents, queries, vectors
  run --split calibration  choose the configuration on calibration queries
                           (sweep: a grid of configurations, each counted)
  freeze                   record it (commit first); held-out runs match it
  run --split heldout      the held-out queries, once per mode and store
  compare                  paired statistics of the modes, or of systems
  bundle                   everything validated again, with CLAIMS.md
evaluate takes a run made elsewhere (TREC, ranx JSON, BEIR results) in place
of run; report and export write an HTML report and files for other tools, new-system
a system of your own to start from, contract a collection of your own
declared. Each command's options: COMMAND --help.

The independent validator, which shares no code with the rest, checks any
result and says whether it is eligible for a claim:
  {validator} AGGREGATE ...
  (or --comparison FILE, --bundle DIR; its --help says more)"""


def add_build_parser(commands: Commands) -> None:
    build = command(commands, "build", "build a dataset's corpus fixture (documents, queries, vectors)")
    add_dataset_option(build, building=True)
    build.add_argument("--out", type=path_argument, required=True, help="fixture JSON to write")
    build.add_argument("--work-dir", type=path_argument, required=True, help="downloads and the embedding cache")
    build.add_argument("--archive", type=path_argument, default=None,
                       help="the dataset's local BEIR zip (default for scifact: $SCIFACT_ARCHIVE; else download "
                            "it from BEIR)")
    build.add_argument("--download-deadline", type=text_argument, default=None, metavar="SECONDS",
                       help=f"most seconds the whole download may take (default: ${DEADLINE_VARIABLE}, else 900)")
    build.add_argument("--embedder", choices=BACKENDS, default="local",
                       help="local: the packaged all-MiniLM-L6-v2 (default); ollama: an Ollama server")
    build.add_argument("--model", type=text_argument, default=None,
                       help="local: a sentence-transformers directory, or a Hub id at a commit (org/name@<commit>, "
                            "from the Hugging Face cache); ollama: the model's name (default: $SCIFACT_EMBED_MODEL, "
                            "else the backend's default)")
    build.add_argument("--model-name", type=text_argument, default=None, metavar="NAME",
                       help="the name a local model is declared under in every receipt (default: a directory's own "
                            "name, or the Hub id); never a path")
    build.add_argument("--allow-unpinned", action="store_true",
                       help="accept payload digests that differ from the pins; recorded as unpinned")
    build.add_argument("--profile", choices=PROFILES, default="scifact-contract",
                       help="text profile; model-prompts asks each role with the model's own prompts (e5's 'query: "
                            "'); mteb-parity reproduces MTEB's encoding and is never a contract result")
    build.add_argument("--no-progress", action="store_true",
                       help="no progress on stderr (a bar on a terminal, lines in a log)")


def add_run_parser(commands: Commands) -> None:
    run = command(commands, "run", "evaluate retrieval modes on a split; writes rows and aggregate receipts")
    run.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON (from `build`)")
    add_dataset_option(run, building=False)
    run.add_argument("--store-dir", type=path_argument, required=True, help="persisted store (built or reused)")
    run.add_argument("--output-dir", type=path_argument, required=True, help="where the artifacts go")
    run.add_argument("--split", choices=SPLITS, required=True,
                     help="calibration (before the freeze), heldout (after it) or all (after heldout)")
    run.add_argument("--mode", choices=(*MODES, "all"), default="all", help="default: every mode the system offers")
    system_option(run)
    measure_option(run)
    config_option(run)
    run.add_argument("--replace", action="store_true",
                     help="move earlier artifacts of the same mode and split to OUTPUT/superseded/ first")
    run.add_argument("--no-validate", action="store_true",
                     help="skip the independent validator's verdict at the end (run it later on the aggregates)")
    run.add_argument("--archive", type=path_argument, default=None, metavar="ZIP",
                     help="the dataset's zip, for the validator to re-derive the fixture from, placed for every later "
                          "step (SciFact's is also read from $SCIFACT_ARCHIVE; a --contract's own zip beside it is "
                          "found without it)")


def measure_option(parser: Parser) -> None:
    parser.add_argument("--measure", type=text_argument, action="append", default=None, metavar="NAME",
                        help="a measure beside the default metrics, as ir_measures writes it (nDCG@20, P@5, R@50, "
                             "AP@100, RR@10, Success@3, Judged@10, P(rel=2)@5), at most the rows' depth (100); "
                             "repeatable (docs/measures.md)")


def add_evaluate_parser(commands: Commands) -> None:
    evaluate = command(commands, "evaluate", "evaluate a run made elsewhere (a TREC run file, a ranx run's JSON or "
                       "BEIR's results dict) on a split; writes rows and aggregate receipts, ranking attested")
    evaluate.add_argument("run_file", type=path_argument, nargs="?", default=None, metavar="RUN_FILE",
                          help="the run: TREC lines 'qid Q0 docno rank score tag', or JSON {qid: {docid: score}}; "
                               "kept in --store-dir (held-out: the kept, frozen one when left out)")
    evaluate.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON (from `build`)")
    add_dataset_option(evaluate, building=False)
    evaluate.add_argument("--store-dir", type=path_argument, required=True,
                          help="the run's own directory: a copy of the run file and its run ledger (one run each)")
    evaluate.add_argument("--output-dir", type=path_argument, required=True, help="where the artifacts go")
    evaluate.add_argument("--split", choices=SPLITS, required=True,
                          help="calibration (before the freeze), heldout (after it) or all (after heldout)")
    evaluate.add_argument("--name", type=text_argument, default=None, metavar="NAME",
                          help="the system that made the run, as comparisons and reports call it (default: the "
                               "TREC run tag)")
    evaluate.add_argument("--format", choices=("auto", "trec", "json"), default="auto",
                          help="the run file's format (default: JSON when it opens with '{', else TREC)")
    measure_option(evaluate)
    evaluate.add_argument("--replace", action="store_true",
                          help="move earlier artifacts of the same split to OUTPUT/superseded/ first")
    evaluate.add_argument("--no-validate", action="store_true",
                          help="skip the independent validator's verdict at the end (run it later on the aggregate)")
    evaluate.add_argument("--archive", type=path_argument, default=None, metavar="ZIP",
                          help="the dataset's zip, for the validator to re-derive the fixture from (as for run)")


def add_freeze_parser(commands: Commands) -> None:
    freeze = command(commands, "freeze", "record the configuration that held-out runs must match")
    freeze.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON")
    add_dataset_option(freeze, building=False)
    freeze.add_argument("--store-dir", type=path_argument, required=True, help="the store calibration used")
    freeze.add_argument("--output-dir", type=path_argument, required=True,
                        help="where freeze.json and the receipts go")
    freeze.add_argument("--mode", choices=(*MODES, "all"), default="all",
                        help="modes to freeze (default: every mode the system offers)")
    system_option(freeze)
    config_option(freeze)
    freeze.add_argument("--allow-dirty", action="store_true",
                        help="freeze a work tree with uncommitted changes (recorded; not eligible for a claim)")
    freeze.add_argument("--replace", action="store_true",
                        help="re-freeze (only before any held-out or all-query run on this store)")
    freeze.add_argument("--allow-failed-calibration", action="store_true",
                        help="freeze although a frozen mode's calibration receipt in --output-dir records failed "
                             "queries, or is missing (recorded in freeze.json)")
    freeze.add_argument("--archive", type=path_argument, default=None, metavar="ZIP",
                        help="the dataset's zip, placed for the validator of later steps (a --contract's own zip "
                             "beside it is found without it)")
    add_hypothesis_options(freeze)


def add_sweep_parser(commands: Commands) -> None:
    sweep = command(commands, "sweep", "evaluate every configuration of a declared grid on the calibration split, "
                                       "each counted in the store's run ledger")
    sweep.add_argument("--grid", type=path_argument, required=True, metavar="GRID",
                       help='the grid as JSON: {"parameters": {"rrf_k": [20, 40, 60], "lexical.k1": [0.9, 1.2]}} '
                            "(lexical.k1, lexical.b, rrf_k, hybrid_candidate_depth; at most 100 configurations)")
    sweep.add_argument("--corpus", type=path_argument, required=True, help="corpus fixture JSON (from `build`)")
    add_dataset_option(sweep, building=False)
    sweep.add_argument("--store-dir", type=path_argument, required=True,
                       help="the store the chosen configuration is then run and frozen in: its run ledger records "
                            "every configuration tried")
    sweep.add_argument("--output-dir", type=path_argument, required=True,
                       help="where the sweep's file and its configurations' files go")
    sweep.add_argument("--mode", choices=(*MODES, "all"), default="all", help="default: every mode the system offers")
    system_option(sweep)
    sweep.add_argument("--archive", type=path_argument, default=None, metavar="ZIP",
                       help="the dataset's zip, placed for the validator of later steps (as for run)")


def add_replay_parser(commands: Commands) -> None:
    replay = command(commands, "replay", "ask the live system a run's queries again; prints JSON (the validator "
                                          "uses it for a lane it cannot recompute on its own)")
    replay.add_argument("--aggregate", type=path_argument, required=True, action="append",
                        help="the run's aggregate receipt; repeated, every one is replayed, one system opened for "
                             "those that share it, and the JSON maps each path as given to its answers (\"replays\")")
    replay.add_argument("--fixture", type=path_argument, default=None, metavar="FILE",
                        help="the run's fixture (default: where the output directory's locations.json places it)")
    replay.add_argument("--store-dir", type=path_argument, default=None,
                        help="where the system is now (default: where the output directory's locations.json places "
                             "it)")
    replay.add_argument("--system-path", type=path_argument, default=None, metavar="DIR",
                        help="where the system's module is now (default: where the output directory's "
                             "locations.json places the system's source root)")


def add_contract_parser(commands: Commands) -> None:
    parser = command(commands, "contract", "declare a BEIR-layout collection of your own as a contract file "
                                                   "(member and content digests, counts, the split rule)")
    given = parser.add_mutually_exclusive_group(required=True)
    given.add_argument("--dataset-dir", type=path_argument, metavar="DIR",
                       help="a directory with corpus.jsonl, queries.jsonl and qrels/SPLIT.tsv; packed into "
                            "NAME.zip beside --out")
    given.add_argument("--archive", type=path_argument, metavar="ZIP", help="the collection as a zip, as BEIR ships")
    parser.add_argument("--name", type=text_argument, required=True, help="the collection's name (receipts carry it)")
    parser.add_argument("--out", type=path_argument, required=True, metavar="FILE", help="the contract JSON to write")
    parser.add_argument("--split", type=text_argument, default="test", help="the judged split (qrels/SPLIT.tsv)")
    parser.add_argument("--calibration-count", type=int, default=None, metavar="N",
                        help="queries in the calibration split: the first N by (sha256(query_id), query_id); "
                             "default a third")


def build_parser(prog: str = "scifact-harness") -> Parser:
    parser = Parser(prog=prog, description=DESCRIPTION.format(validator=validator_command()),
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=VersionAction, help="print the version and the harness source digest")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     help="build, run, sweep, evaluate, freeze, bundle, replay, compare, "
                                          "report, export, new-system or contract")
    add_build_parser(commands)
    add_run_parser(commands)
    add_evaluate_parser(commands)
    add_freeze_parser(commands)
    add_sweep_parser(commands)
    add_replay_parser(commands)
    publish_parsers.add_all(commands)
    new_system.add_parser(commands)
    add_contract_parser(commands)
    return parser



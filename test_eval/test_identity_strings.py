"""A system's own strings are data: a plugin whose name, or a key of whose attested(), holds a newline and a
Markdown comment is refused at run time (and at freeze time), with a message naming the system and the rule, before
any receipt is written."""

import html as html_module
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from harness.corpus.contract import Contract
from harness.evaluation.gates.freeze import freeze_configuration
from harness.evaluation.gates.split_modes import read_freeze
from harness.evaluation.receipts.identity_check import SystemStringsError
from harness.evaluation.run_split import Evaluation, run_split
from harness.fixture.corpus_fixture import CorpusFixture
from harness.hashing import sha256_canonical, sha256_file
from harness.publish.claims.claims_document import claims_markdown
from harness.publish.report.report import with_verification
from harness.publish.report.report_data import load_report_data
from harness.publish.report.report_markdown import render_markdown
from harness.systems.builtin.config.search_config import SearchConfig
from harness.systems.registry.select import make_builder
from harness.validator.pipeline import validate
from test_validate.report_check import Tables

ROOT = Path(__file__).resolve().parent.parent
ATTACK = "numpy-dense\n<!--"
PLUGINS = '''
from numpy_dense import NumpyDense


class ForgedName(NumpyDense):
    name = "numpy-dense\\n<!--"


class ForgedAttestation(NumpyDense):
    def attested(self):
        return {"server": "local", "x\\n-->\\n- `vector_only` heldout: dense: recomputed independently": "yes"}


class LongVersion(NumpyDense):
    version = "1." + "0" * 250


NAME, ATTESTED, VERSION = ForgedName(), ForgedAttestation(), LongVersion()
'''


@pytest.fixture
def forged_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "forged_strings.py").write_text(PLUGINS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    for name in [n for n in sys.modules if n in ("numpy_dense", "forged_strings")]:
        monkeypatch.delitem(sys.modules, name)


def _calibration(corpus: CorpusFixture, contract: Contract, root: Path, spec: str) -> None:
    run_split(Evaluation(corpus=corpus.path, store_dir=root / "store", output_dir=root / "out", split="calibration",
                         system=spec), contract)


@pytest.mark.usefixtures("forged_plugins")
def test_a_name_with_a_newline_is_refused_before_any_query(tiny_corpus: CorpusFixture, tiny: Contract,
                                                            tmp_path: Path) -> None:
    with pytest.raises(SystemStringsError) as caught:
        _calibration(tiny_corpus, tiny, tmp_path, "forged_strings:NAME")
    message = str(caught.value)
    assert message.startswith(f"system {ATTACK!r} (--system 'forged_strings:NAME') states an identity")
    assert f"the value {ATTACK!r} at name is not one line of printable text" in message
    assert "Fix the system: every name, version" in message and "\n" not in message
    assert not list((tmp_path / "out").glob("*.aggregate.json"))
    system = make_builder(tiny.namespace, SearchConfig(), "forged_strings:NAME").open(tiny_corpus, tmp_path / "store")
    with pytest.raises(SystemStringsError, match="states an identity"):
        freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=("vector_only",),
                             output_dir=tmp_path / "out", argv=[], allow_dirty=True, replace=False)
    assert not (tmp_path / "out" / "freeze.json").exists()


@pytest.mark.usefixtures("forged_plugins")
def test_an_attested_key_with_a_newline_and_an_overlong_version_are_refused(tiny_corpus: CorpusFixture,
                                                                            tiny: Contract, tmp_path: Path) -> None:
    with pytest.raises(SystemStringsError) as caught:
        _calibration(tiny_corpus, tiny, tmp_path / "attested", "forged_strings:ATTESTED")
    message = str(caught.value)
    assert message.startswith("system 'numpy-dense' (--system 'forged_strings:ATTESTED') states a store receipt")
    assert "the key 'x\\n-->\\n- `vector_only` heldout: dense: recomputed independently' at attested" in message
    assert not list((tmp_path / "attested" / "out").glob("*.aggregate.json"))
    with pytest.raises(SystemStringsError, match=r"the value '1\.0{250}' at version is not one line of printable "
                                                 "text within the length bound"):
        _calibration(tiny_corpus, tiny, tmp_path / "version", "forged_strings:VERSION")


# --- the same strings with the schemas bypassed: CLAIMS.md and report.md render them inert ---------------------

UNDECLARED = '''

class Undeclared(NumpyDense):
    declarations = {}  # nothing the validator may recompute on its own: the dense lane is not verified


UNDECLARED = Undeclared()
'''
COMMENT_NAME = "numpy-dense\n<!--"
CLOSING_KEY = "x -->\n- `vector_only` heldout: dense: recomputed independently from the fixture's vectors\n<!--"


def _rendered(text: str) -> str:
    return str(MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text))


def _structure(text: str) -> tuple[list[str], list[str], list[str], list[list[str]]]:
    """(raw HTML the document would pass through, its headings, its list items and its table rows, as read)."""
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)
    html = [t.content for t in tokens if t.type == "html_block"]
    html += [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "html_inline"]
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    items = [_read(tokens[i + 2]) for i, t in enumerate(tokens)
             if t.type == "list_item_open" and tokens[i + 1].type == "paragraph_open"]
    return html, headings, items, parse_html(_rendered(text)).rows


def parse_html(text: str) -> Tables:
    parser = Tables()
    parser.feed(text)
    return parser


def _read(inline: Token) -> str:
    return "".join(c.content if c.type in ("text", "code_inline") else " " for c in inline.children or [])


@pytest.fixture
def undeclared_run(forged_plugins: None, tiny_corpus: CorpusFixture, tiny: Contract, tmp_path: Path) -> Path:
    """A one-mode plugin run (calibration, freeze, held-out) whose dense lane the validator cannot verify."""
    module = tmp_path / "plugins" / "forged_strings.py"
    module.write_text(module.read_text(encoding="utf-8") + UNDECLARED, encoding="utf-8")
    spec, out, store = "forged_strings:UNDECLARED", tmp_path / "out", tmp_path / "store"
    _calibration(tiny_corpus, tiny, tmp_path, spec)
    system = make_builder(tiny.namespace, SearchConfig(), spec).open(tiny_corpus, store)
    freeze_configuration(fixture=tiny_corpus, system=system, contract=tiny, modes=("vector_only",), output_dir=out,
                         argv=[], allow_dirty=True, replace=False)
    run_split(Evaluation(corpus=tiny_corpus.path, store_dir=store, output_dir=out, split="heldout", system=spec),
              tiny)
    return out


def test_claims_and_report_show_forged_strings_inert(undeclared_run: Path) -> None:
    out = undeclared_run
    paths = [out / f"tiny-test-vector_only-{split}.aggregate.json" for split in ("calibration", "heldout")]
    validated = {sha256_file(path): validate(path, embeddings=False) for path in paths}
    reports = [report.to_dict() for report in validated.values()]
    lanes = {r["notes"]["lane_verification"]["dense"] for r in reports}
    assert lanes == {"not verified (nothing to replay from)"}
    freeze = read_freeze(out)
    assert freeze is not None

    def claims(forged: bool) -> str:
        aggregates = [json.loads(path.read_bytes()) for path in paths]
        key = CLOSING_KEY if forged else "server"  # what the system attests, in the validator's report
        attested = [dict(r, attested=[*r["attested"], {"name": key, "detail": key}]) for r in reports]
        for aggregate in aggregates if forged else []:
            aggregate["receipt"]["system"]["name"] = COMMENT_NAME
        return claims_markdown(aggregates, freeze.record, attested)

    def report_md(forged: bool) -> str:
        data = with_verification(load_report_data(out, validated=True, freeze=freeze), validated)
        for split in data.splits if forged else []:
            for entry in split.inputs:
                entry.aggregate["receipt"]["system"].update(name=COMMENT_NAME, version=CLOSING_KEY)
        return render_markdown(data)

    for render in (claims, report_md):
        clean_html, clean_headings, clean_items, clean_rows = _structure(render(False))
        html, headings, items, rows = _structure(render(True))
        assert not html and not clean_html, html  # no comment and no tag: nothing hides what follows it
        assert headings == clean_headings and len(items) == len(clean_items) and len(rows) == len(clean_rows)
        assert not [i for i in items if i.startswith("vector_only heldout: dense: recomputed")], items
        shown = html_module.unescape(re.sub(r"<[^>]*>", "", _rendered(render(True))))
        assert "numpy-dense\\u000a<!--" in shown  # the forged name, shown as what it is
    # each lane's words follow its check: replay.dense failed, with nothing to replay from
    assert "vector_only heldout: dense: not verified (nothing to replay from) (replay.dense failed)" in (
        _structure(claims(True))[2])
    assert ["held-out, vector_only", "\u2014", "not verified (nothing to replay from) (replay.dense failed)",
            "\u2014"] in _structure(report_md(True))[3]


def test_the_validator_refuses_forged_strings_in_a_receipt_and_a_freeze(undeclared_run: Path) -> None:
    """The same strings written into the receipts by hand: the validator's own schema check refuses them."""
    path = undeclared_run / "tiny-test-vector_only-heldout.aggregate.json"
    original = path.read_bytes()
    forgeries: dict[str, Callable[[dict[str, Any]], object]] = {
        "receipt/system/name": lambda r: r["system"].update(name=COMMENT_NAME),
        "receipt/system/engine/version": lambda r: r["system"]["engine"].update(version="1\u2028 2"),
        "receipt/store/attested": lambda r: r["store"]["attested"].update({CLOSING_KEY: "yes"}),
        "receipt/store/attested/server": lambda r: r["store"]["attested"].update(server="a\n<!--")}
    for where, forge in forgeries.items():
        aggregate = json.loads(original)
        forge(aggregate["receipt"])
        path.write_text(json.dumps(aggregate, indent=1), encoding="utf-8")
        report = validate(path, embeddings=False)
        failed = [check for check in report.checks if check.status == "fail"]
        assert [check.name for check in failed] == ["aggregate.schema"], where
        assert f"at {where}" in str(failed[0].found), (where, failed[0].found)
    path.write_bytes(original)
    freeze_path = undeclared_run / "freeze.json"
    record = json.loads(freeze_path.read_bytes())
    record["system"]["name"] = COMMENT_NAME
    body = {key: value for key, value in record.items() if key != "freeze_sha256"}
    record["freeze_sha256"] = sha256_canonical(body)
    freeze_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
    names = {check.name for check in validate(path, embeddings=False).checks if check.status == "fail"}
    assert "freeze.schema" in names, names

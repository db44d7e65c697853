"""report.html read by its structure, as `blocks` reads Markdown: headings (h1-h4, and a folded part's summary),
tables with their id, caption (`aria-labelledby`) and rows, and the text of paragraphs and list items; the plots
(SVG), the style and scripts are skipped (not checked)."""

from html.parser import HTMLParser

from .blocks import Block, Row
from .figures import plain

SKIPPED = ("svg", "style", "script")
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "summary": 4}
TEXTS = ("p", "li", "dd", "figcaption")


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self.captions: dict[str, str] = {}
        self.skipping = 0
        self.table: Block | None = None
        self.row: Row | None = None
        self.cell: list[str] | None = None
        self.head = False
        self.text: tuple[str, int, list[str]] | None = None  # (tag, line, parts)
        self.ids: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag in SKIPPED:
            self.skipping += 1
        if self.skipping:
            return
        line = self.getpos()[0]
        if tag == "table":
            self.table = Block("table", line, ident=named.get("id") or "")
            self.table.text = self.captions.get(named.get("aria-labelledby") or "", "")
        elif tag == "thead":
            self.head = True
        elif tag == "tr" and self.table is not None:
            self.row = Row(line, [])
        elif tag in ("th", "td") and self.row is not None:
            self.cell = []
            self.row.group = named.get("scope") == "rowgroup"
        elif (tag in HEADINGS or tag in TEXTS) and self.table is None:
            self._flush()
            self.text = (tag, line, [])
            self.ids.append(named.get("id"))

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED:
            self.skipping = max(0, self.skipping - 1)
            return
        if self.skipping:
            return
        if tag in ("th", "td") and self.cell is not None and self.row is not None:
            self.row.cells.append(plain("".join(self.cell)))
            self.cell = None
        elif tag == "tr" and self.row is not None and self.table is not None:
            if self.head:
                self.table.headers = self.row.cells
            else:
                self.table.rows.append(self.row)
            self.row = None
        elif tag == "thead":
            self.head = False
        elif tag == "table" and self.table is not None:
            self.blocks.append(self.table)
            self.table = None
        elif tag in HEADINGS or tag in TEXTS:
            self._flush()

    def _flush(self) -> None:
        if self.text is None:
            return
        tag, line, parts = self.text
        ident = self.ids.pop() if self.ids else None
        text = plain(" ".join("".join(parts).split()))
        self.text = None
        if ident and ident.startswith("caption-"):
            self.captions[ident] = text
        elif tag in HEADINGS:
            self.blocks.append(Block("heading", line, text, HEADINGS[tag]))
        elif text:
            self.blocks.append(Block("text", line, text))

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.cell is not None:
            self.cell.append(data)
        elif self.text is not None:
            self.text[2].append(data)


def html_blocks(text: str) -> list[Block]:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    reader._flush()
    return reader.blocks

"""A text read by its structure: headings, tables (caption, header, rows, each with its line number) and the
sentences of paragraphs and list items, the same for Markdown (here) and HTML (`html_blocks`)."""

from dataclasses import dataclass, field

from .figures import plain


@dataclass
class Row:
    line: int
    cells: list[str]
    group: bool = False  # a row of its label alone, heading a group of rows (the headline's split)


@dataclass
class Block:
    kind: str  # "heading", "table" or "text"
    line: int
    text: str = ""  # a heading's or a sentence's text, plain; a table's caption
    level: int = 0  # a heading's level
    headers: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    ident: str = ""  # an HTML table's id


def _cells(line: str) -> list[str]:
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    cells, current, escaped = [], "", False
    for char in inner:
        if char == "|" and not escaped:
            cells.append(current.strip())
            current = ""
        else:
            current += char
        escaped = char == "\\" and not escaped
    return [*cells, current.strip()]


def markdown_blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    caption = ""
    fenced = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced or not line:
            continue
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            blocks.append(Block("heading", number, plain(line[level:]), level))
        elif line.startswith("|"):
            cells = _cells(line)
            if blocks and blocks[-1].kind == "table" and not blocks[-1].rows and all(
                    set(c) <= set("-: ") for c in cells):
                continue  # the alignment row
            if blocks and blocks[-1].kind == "table" and blocks[-1].line + len(blocks[-1].rows) + 2 == number:
                group = bool(cells[0].startswith("**")) and not any(c.strip() for c in cells[1:])
                blocks[-1].rows.append(Row(number, [plain(c) for c in cells], group))
            else:
                blocks.append(Block("table", number, caption, headers=[plain(c) for c in cells]))
            caption = ""
        elif line.startswith("**") and line.endswith("**"):
            caption = plain(line)
        else:
            body = line[2:] if line.startswith(("- ", "* ")) else line
            blocks.append(Block("text", number, plain(body)))
            caption = ""
    return blocks

"""Any value a receipt carries, written into Markdown as inert text: it shows as itself and opens nothing.

Receipts hold strings a system chose (its name, version, engine, `attested()` keys, ...). The schemas bound them
to one printable line, but CLAIMS.md and report.md do not rely on that: every such value goes through `inert`
(plain text, markup characters backslash-escaped) or `code` (a code span), both of which write control and line
characters as visible `\\uXXXX` text, so that a value can neither end its line nor open a comment, a tag, a link,
emphasis, a heading or a table cell.
"""

import re
import unicodedata

# Characters that could start markup anywhere in a line: escapes, code, emphasis, links and images, raw HTML and
# entities, table cells, strikethrough, headings' closing sequences, and the math delimiters GitHub renders.
MARKUP = frozenset("\\`*[]<>&|~#$")
# Line characters and the invisible direction overrides that make text read other than it is.
INVISIBLE = frozenset("\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff")
# What makes the start of a line a block: a list item, an ordered item, a rule or setext underline, indented code
# (a quote, `>`, is escaped already).
BLOCK_START = re.compile(r"^(?:[-+](?:\s|$)|[0-9]{1,9}[.)](?:\s|$)|[-=\s]+$|\s)")


def visible(value: object) -> str:
    """`value` as one line: control and line characters written as `\\uXXXX`."""
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cc" or c in INVISIBLE else c
                   for c in str(value))


def _escaped(text: str, index: int) -> str:
    character = text[index]
    if character in MARKUP:
        return "\\" + character
    if character == "_":  # an underscore between two letters or digits never delimits emphasis (fts_only)
        inside = 0 < index < len(text) - 1 and text[index - 1].isalnum() and text[index + 1].isalnum()
        return "_" if inside else "\\_"
    return character


def inert(value: object) -> str:
    """`value` as Markdown text that renders exactly as `visible(value)`, wherever in a line or table cell it
    stands."""
    text = visible(value)
    escaped = "".join(_escaped(text, i) for i in range(len(text)))
    start = BLOCK_START.match(escaped)
    if start is not None:  # at the start of a line it would make a block: its first character as an entity
        escaped = f"&#{ord(escaped[0])};" + escaped[1:]
    return escaped


def code(value: object) -> str:
    """`value` as a code span showing `visible(value)`; a value holding `|` (which a table cell would split
    on, escaped or not depending on where the span stands) or nothing is written as `inert` text instead."""
    text = visible(value)
    if not text or "|" in text:
        return inert(value)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    padded = text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" "))
    return f"{fence} {text} {fence}" if padded else f"{fence}{text}{fence}"

"""A figure as a text shows it, held to a value at the precision it is shown: four decimals are compared at four
decimals, `1.5e-04` at two significant digits, `undefined` and `n/a` stand for no value."""

import math
import re
from dataclasses import dataclass, field

NUMBER = re.compile(r"[+\-]?\d+(?:\.\d+)?(?:e[+\-]?\d+)?")
TOKEN = re.compile(r"[+\-]?\d+(?:\.\d+)?(?:e[+\-]?\d+)?|undefined|n/a")
NO_VALUE = ("undefined", "n/a")
Value = float | int | None


def plain(text: str) -> str:
    """The text with the publisher's typography undone: the minus sign, Markdown's escapes, emphasis and marks."""
    text = text.replace("\u2212", "-").replace("\u26a0", "")
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!<>|$])", r"\1", text)
    return text.replace("**", "").replace("`", "").strip()


def shown_as(text: str, value: Value) -> bool:
    """Whether `text` (one figure) is `value` at the precision `text` shows."""
    if text in NO_VALUE or value is None:
        return text in NO_VALUE and value is None
    if isinstance(value, bool):
        return False
    number = float(value)
    if not math.isfinite(number):
        return False
    if "e" in text:
        mantissa = text.lstrip("+-").split("e")[0]
        digits = len(mantissa.replace(".", "").lstrip("0")) or 1
        return float(text) == float(f"{number:.{digits - 1}e}")
    places = len(text.split(".")[1]) if "." in text else 0
    if places == 0 and isinstance(value, int):
        return int(text) == value
    return float(text) == float(f"{number:.{places}f}")


@dataclass
class Tally:
    """What one text's check found: figures compared, each that differs, each part not checked."""

    file: str
    checked: int = 0
    failures: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)  # what was not checked, in words, once each

    def compare(self, line: int, what: str, shown: list[str], expected: list[Value], source: str) -> None:
        """`shown`: the figures as the text has them; `expected`: the artifact's values, in the same order."""
        self.checked += len(expected)
        if len(shown) != len(expected) or not all(shown_as(s, e) for s, e in zip(shown, expected, strict=False)):
            self.fail(line, f"{what} shows {' '.join(shown) or 'no figure'}; {source} holds "
                      f"{' '.join(_show(e) for e in expected)}")

    def word(self, line: int, what: str, shown: str, expected: str, source: str) -> None:
        """A word the artifact decides (significant, supported, confirmatory)."""
        self.checked += 1
        if shown != expected:
            self.fail(line, f"{what} says {shown!r}; {source} holds {expected!r}")

    def fail(self, line: int, problem: str) -> None:
        self.failures.append(f"{self.file} line {line}: {problem}")

    def missing(self, line: int, what: str) -> None:
        """A figure for a run or comparison the bundle does not carry validated."""
        self.fail(line, f"{what}: the bundle carries no validated artifact it could come from (no figure without "
                        "the validated artifact it came from)")

    def skip(self, what: str) -> None:
        if what not in self.unchecked:
            self.unchecked.append(what)


def _show(value: Value) -> str:
    return "none" if value is None else repr(value)


def figures_of(cell: str) -> list[str] | None:
    """The figures of a cell, in order; None when something in it is neither a figure nor a known word (a malformed
    number)."""
    text = plain(cell).replace("\u2605", "")
    found = TOKEN.findall(text)
    rest = TOKEN.sub(" ", text)
    rest = re.sub(r"[\[\],/ ]|contended|quiet|unknown", "", rest)
    return None if rest else found

"""The mutations of the bundle reader's texts check, its held-out completeness and its PUBLISHER line (the audit adds
them to `mutations.MUTATIONS`)."""

from mutations import Mutation

T = "harness/validator/texts/"
TEXTS = ("test_validate/test_bundle_texts.py",)
COMPLETE = ("test_validate/test_bundle_completeness.py",)

MUTATIONS_TEXTS: tuple[Mutation, ...] = (
    Mutation("VT01", T + "figures.py", 'return float(text) == float(f"{number:.{places}f}")',
             "return abs(float(text) - number) < 1", TEXTS),
    Mutation("VT02", T + "figures.py", "if len(shown) != len(expected) or not all(",
             "if len(shown) != len(expected) and not all(", TEXTS),
    Mutation("VT03", T + "figures.py", "return None if rest else found", "return found", TEXTS),
    Mutation("VT04", T + "tables.py", 'tally.missing(row.line, f"the row of {mode} on {split}")', "pass",
             COMPLETE),
    Mutation("VT05", T + "check_texts.py", "for failure in tally.failures[:SHOWN]:",
             "for failure in tally.failures[:0]:", TEXTS),
    Mutation("VT06", "harness/validator/bundle_words.py", "            if not (bundle / name).is_file():",
             "            if False:", COMPLETE),
    Mutation("VT07", "harness/validator/bundle_words.py", "named.setdefault(attestation.name, set()).add(path)",
             'named.setdefault("latency", set()).add(path)', TEXTS),
    Mutation("VT08", "harness/validator/core/report.py", "if not lanes or not any(", "if lanes or not any(", TEXTS),
    Mutation("VT09", "harness/validator/bundle_reader.py", "    if missing:\n        said",
             "    if False:\n        said", COMPLETE),
)

"""The bundle's texts, held to its validated artifacts.

Every result figure of CLAIMS.md, report.md, report.html, `exports/summary.csv`, `exports/summary.json` and
`exports/*.tex` is compared, at the precision the text shows it, with the aggregate or comparison it claims to come
from (`check_texts`). The texts are read by structure (`blocks`, `html_blocks`, the LaTeX table in `exports`), the
labels mapped by the validator's own table (`labels`), the artifacts' values gathered once (`facts`), each table and
sentence judged (`tables`, `sentences`), the summaries' rows by their columns (`exports`).
"""

"""The bundle's texts held to its validated artifacts: every result figure of CLAIMS.md, report.md, report.html,
`exports/summary.csv`, `exports/summary.json` and `exports/*.tex` compared, at the precision the text shows it, with
the aggregate or comparison it claims to come from (`check_texts`). The texts are read by structure (`blocks`,
`html_blocks`, `latex_blocks`), the labels mapped by the validator's own table (`labels`), the artifacts' values
gathered once (`facts`), each table and sentence judged (`tables`, `sentences`), the exports' rows by their columns
(`exports`)."""

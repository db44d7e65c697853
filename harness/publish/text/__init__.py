"""Words shared by CLAIMS.md and the report.

Receipt values as inert Markdown, the verdicts and notes in words, the latency notes and the held-out
looks.
"""

"""The report's stylesheet, inline in the page: one column that reads at a phone's 390 CSS px and at a desktop's
1280; tables scroll inside their own box when wider than the screen, never the page; sentences in tables wrap,
numbers do not; plots are drawn at about a phone's width (report_plots) and capped on a wide screen."""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1a1a1a;
       background: #fff; margin: 0; line-height: 1.45; }
main { max-width: 1060px; margin: 0 auto; padding: 20px 28px 48px; }
main p, main li, main dd, main summary { overflow-wrap: anywhere; }
h1 { font-size: 1.5rem; line-height: 1.2; margin: 0 0 6px; }
h1 .stamp { color: #b00020; }
h2 { font-size: 1.22rem; margin: 32px 0 8px; padding-top: 10px; border-top: 2px solid #ddd; }
h3 { font-size: 1.02rem; margin: 20px 0 6px; }
p.lede { margin: 0 0 6px; }
p.status { margin: 6px 0 10px; padding: 6px 10px; border-left: 4px solid #2e7d32; background: #f1f8f1; }
p.status.unvalidated { border-color: #b00020; background: #fdecee; }
p.reading { margin: 6px 0 10px; }
ul.verdicts li { margin: 4px 0; }
.call { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 0.85rem; font-weight: 600; }
.call.significant { background: #e3f1e4; color: #1b5e20; }
.call.not-significant { background: #eeeeee; color: #444; }
p.caption { font-weight: 600; font-size: 0.86rem; margin: 10px 0 0; }
div.wide { overflow-x: auto; max-width: 100%; margin: 4px 0 14px; }
table { border-collapse: collapse; font-size: 0.86rem; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 4px 10px; vertical-align: top; }
thead th { border-bottom: 2px solid #999; text-align: left; background: #fafafa; }
th[scope="row"] { text-align: left; font-weight: 600; white-space: nowrap; }
tr.group th { background: #f2f4f7; font-weight: 600; text-align: left; padding-top: 7px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text { text-align: left; min-width: 9em; }
td.best { font-weight: 700; }
td .ci { color: #555; font-size: 0.8rem; }
td.flag { color: #7a4100; background: #fff4e5; font-weight: 600; }
p.contention { padding: 6px 10px; border-left: 4px solid #e08a00; background: #fff4e5; }
p.contention.quiet { border-color: #9e9e9e; background: #f6f6f6; }
ul.reasons { font-size: 0.82rem; color: #444; margin-top: 0; }
figure { margin: 8px 0 16px; }
figure svg { display: block; width: 100%; max-width: 560px; height: auto; }
figcaption { font-size: 0.82rem; color: #444; max-width: 560px; }
details { margin: 8px 0; padding: 2px 10px; border: 1px solid #e3e3e3; border-radius: 4px; }
details > summary { cursor: pointer; font-weight: 600; padding: 4px 0; }
details[open] > summary { margin-bottom: 4px; }
dl.receipt dt { font-weight: 600; margin-top: 6px; }
dl.receipt dd { margin-left: 16px; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.78rem; }
.note { color: #555; font-size: 0.86rem; }
nav { font-size: 0.9rem; margin: 12px 0; }
nav a { color: #0b57a4; }
@media (max-width: 640px) {
  main { padding: 12px 14px 32px; }
  h1 { font-size: 1.3rem; }
  h2 { font-size: 1.1rem; margin-top: 24px; }
  table { font-size: 0.8rem; }
  th, td { padding: 4px 6px; }
  td.text { min-width: 11em; }
  dl.receipt dd { margin-left: 6px; }
  details { padding: 2px 6px; }
}
@media print {
  details { border: none; padding: 0; }
  div.wide { overflow: visible; }
}
"""

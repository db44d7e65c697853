"""The HTML and Markdown report of an output directory."""

"""Publishing: the bundle, CLAIMS.md, reports and exports for other tools."""

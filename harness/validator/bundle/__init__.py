"""A publication bundle judged by its reader (`--bundle DIR`): its manifest against its bytes, every artifact in it
validated afresh, every text re-embedded here, nothing sealed by anyone reused."""

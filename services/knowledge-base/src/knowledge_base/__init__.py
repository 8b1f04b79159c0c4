"""knowledge-base: Markdown knowledge bases over files (seed 002)."""

"""Pure model of a knowledge base: files, derived navigation, relations, search (no I/O)."""

"""Benchmarks (``make bench``): each module prints a table and writes JSON under bench/results/."""

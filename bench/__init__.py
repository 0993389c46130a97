"""Benchmarks: our figures beside the reference systems, in one run (`cardtable bench`)."""

"""Tests that kill the mutants the rest of the quick lane let survive (see tools/mutation.py)."""

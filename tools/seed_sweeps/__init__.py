"""One module per lesson with a random draw: its claims, checked by tools/seed_sweep.py."""

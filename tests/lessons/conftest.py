"""The lesson files import helpers that live one folder up, beside the module tests (lesson_helpers.py,
test_heads_at_work.py): that folder goes on sys.path. tests/conftest.py's fixtures and settings apply here
too (a conftest.py covers its subfolders)."""

import sys
from pathlib import Path

TESTS = str(Path(__file__).resolve().parents[1])
if TESTS not in sys.path:
    sys.path.insert(0, TESTS)

"""Shared by the agreement scripts: a module they need that is not
importable makes the test a skip (exit 77), not a failure."""
import importlib
import sys


def require(*names):
    """The modules named, imported in order; prints SKIP and exits 77 when
    one is not importable."""
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as e:
        print(f"SKIP: {e}")
        sys.exit(77)

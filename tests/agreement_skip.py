"""Shared by the agreement scripts: a module they need that is not
importable makes the test a skip (exit 77), not a failure; the clik package
and one context per device."""
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


def import_clik():
    """The clik package; a package that does not import is a failure (exit
    1), not a skip: the test was built to run it."""
    try:
        import clik
    except ImportError as e:
        print(f"FAIL: cannot import the clik package ({e}); PYTHONPATH must hold the build's "
              "python/ folder, built for this Python")
        sys.exit(1)
    return clik


def open_contexts(clik, devices):
    """One context per device string; a string in place of one that failed."""
    contexts = {}
    for dev in devices:
        try:
            contexts[dev] = clik.Context(dev)
        except clik.Error as e:
            contexts[dev] = f"cannot open device '{dev}': {e.status}: {e.message}"
    return contexts

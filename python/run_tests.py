# SPDX-License-Identifier: BSD-2-Clause
"""Runs the package's pytest suites (meson test python-*): exit 77 (SKIP)
without pytest. Usage: run_tests.py TESTS_DIR [pytest arguments]"""
import sys

# This script's folder (python/, holding the package's sources without the
# built extension) must not hide the build tree's package on PYTHONPATH.
del sys.path[0]

try:
    import pytest
except ImportError as e:
    print(f"SKIP: {e} (Debian: python3-pytest)")
    sys.exit(77)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs"] + sys.argv[1:]))

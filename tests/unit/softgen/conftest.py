"""Make the ``softgen`` package (extensions/softgen) importable."""
import os
import sys

SOFTGEN_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "extensions"))
if SOFTGEN_DIR not in sys.path:
    sys.path.insert(0, SOFTGEN_DIR)

"""Launcher: ``softgen.py --port NAME:NETNS:IFACE ...`` (same as ``python3 -m softgen``)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from softgen.__main__ import main  # noqa: E402  pylint: disable=wrong-import-position

if __name__ == "__main__":
    sys.exit(main())

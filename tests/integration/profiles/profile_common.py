"""What the profiles of this directory share: the client API and their tunables.

The profiles are written here in TRex's STL profile format (a module whose ``register()`` returns an
object with ``get_streams``), after the profiles TRex ships in ``scripts/stl``. Each loads with either
client generation: TRex v3's ``trex.stl.api`` (PyPI's lbr-trex-client, imported first by whoever loads
the profile) or trex-stl-lib 0.3's ``trex_stl_lib.api``.

TRex v3's client passes tunables as ``tunables=['--size', '128']`` (the profile parses them with
argparse, as TRex's own profiles do); trex-stl-lib 0.3 passes them as keywords (``size=128``).
"""
import argparse
import ipaddress

try:
    from trex.stl import api  # noqa: F401  pylint: disable=unused-import
except ImportError:
    from trex_stl_lib import api  # noqa: F401  pylint: disable=unused-import


def tunables(kwargs, **defaults):
    """The profile's tunables from ``get_streams``' keywords, each converted to its default's type."""
    parser = argparse.ArgumentParser(prog="profile")
    for name, default in defaults.items():
        parser.add_argument("--" + name, type=type(default), default=default)
    values = vars(parser.parse_args(list(kwargs.get("tunables") or [])))
    for name, default in defaults.items():
        if name in kwargs:
            values[name] = type(default)(kwargs[name])
    return values


def last_address(first, count):
    """The ``count``-th address from ``first``, dotted."""
    return str(ipaddress.IPv4Address(first) + count - 1)

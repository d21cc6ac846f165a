"""softgen: a software packet generator that speaks the TRex stateless server protocol.

Run ``python3 -m softgen --port NAME:NETNS:IFACE ...`` from the directory that
holds this package (or ``softgen.py`` next to it).
"""
__version__ = "0.2.0"

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Rates of the bench in the units a lab engineer reads: frames/s, Gbps at a frame size, share of line rate.

A frame size is the Ethernet frame with its FCS (64 B is the smallest), as in
RFC 2544 and ``trex_bench``'s ``frame_sizes``, or ``imix`` (TRex's mix of three
sizes; its rates are of the mix's average frame). On the wire every frame also
takes a preamble with its start delimiter (8 B) and the inter-frame gap
(12 B): the line rate of a 10 Gb/s port at 64 B is 10e9 / ((64 + 20) * 8) =
14,880,952 frames/s.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Preamble and start frame delimiter (8 B) and the minimum inter-frame gap (12 B).
WIRE_OVERHEAD = 20
# TRex's IMIX (its scripts/stl/imix.py): packets of 60, 590 and 1514 bytes, frames of 64, 594 and
# 1518 B with their FCS, sent at 28:16:4. A frame size is a number of bytes, or this name.
IMIX = "imix"
IMIX_FRAMES = ((64, 28), (594, 16), (1518, 4))
# The "frame size" of a stateful search (trex_bench's stateful): its loads are connections per second, not frames.
CONNECTIONS = "connections"


def mean_frame_bytes(frame_size):
    """The bytes of an average frame (FCS included): ``frame_size`` itself, IMIX's weighted mean (361.8 B)."""
    if frame_size == IMIX:
        return sum(size * weight for size, weight in IMIX_FRAMES) / float(sum(weight for _size, weight in IMIX_FRAMES))
    if frame_size == CONNECTIONS:
        return None
    return frame_size


def size_text(frame_size):
    """``64 B``, ``imix``, ``connections``: a frame size as the report names it."""
    return frame_size if frame_size in (IMIX, CONNECTIONS) else "%d B" % frame_size


def size_order(frame_size):
    """A sort key that puts IMIX among the sizes at its mean frame (after 100 B, before 1518 B), connections after them."""
    return 1e9 if frame_size == CONNECTIONS else mean_frame_bytes(frame_size)


def sized_key(key, at):
    """A sort key of the tuple ``key`` whose frame size is ``key[at]``: that size by :func:`size_order`."""
    return tuple(key[:at]) + (size_order(key[at]),) + tuple(key[at + 1:])


def gbps_l1(pps, frame_size):
    """Gb/s on the wire (layer 1: frame, preamble and inter-frame gap) of ``pps`` frames/s of ``frame_size`` bytes."""
    if pps is None or frame_size == CONNECTIONS:
        return None
    return pps * (mean_frame_bytes(frame_size) + WIRE_OVERHEAD) * 8 / 1e9


def gbps_l2(pps, frame_size):
    """Gb/s of the frames alone (layer 2, FCS included)."""
    if pps is None or frame_size == CONNECTIONS:
        return None
    return pps * mean_frame_bytes(frame_size) * 8 / 1e9


def line_rate_pps(line_rate_gbps, frame_size):
    """Frames/s of a port of ``line_rate_gbps`` at ``frame_size`` (None when the line rate is not known)."""
    if not line_rate_gbps or frame_size == CONNECTIONS:
        return None
    return line_rate_gbps * 1e9 / ((mean_frame_bytes(frame_size) + WIRE_OVERHEAD) * 8)


def line_share(pps, frame_size, line_rate_gbps):
    """``pps`` as a fraction of the line rate at ``frame_size``; None when either is not known."""
    line = line_rate_pps(line_rate_gbps, frame_size)
    if pps is None or not line:
        return None
    return pps / line


def pps_text(value):
    """``14.88 Mpps``, ``46.6 kpps``, ``300 pps``; ``-`` for None."""
    if value is None:
        return "-"
    if value >= 1e6:
        return "%.2f Mpps" % (value / 1e6)
    if value >= 1e3:
        return "%.1f kpps" % (value / 1e3)
    return "%.0f pps" % value


def rate_unit(frame_size):
    """``pps``, or ``cps`` (connections per second) for a stateful search."""
    return "cps" if frame_size == CONNECTIONS else "pps"


def rate_text(value, frame_size):
    """:func:`pps_text`, or for a stateful search (``connections``) ``1.2 kcps``: connections per second."""
    text = pps_text(value)
    return text[:-3] + "cps" if frame_size == CONNECTIONS and text.endswith("pps") else text


def gbps_text(value):
    """``9.52 Gbps``, ``0.031 Gbps``; ``-`` for None."""
    if value is None:
        return "-"
    if value >= 1.0:
        return "%.2f Gbps" % value
    if value >= 0.001:
        return "%.3f Gbps" % value
    return "%.2g Gbps" % value


def share_text(value):
    """``42.0 %`` of line rate; ``-`` for None."""
    return "-" if value is None else "%.1f %%" % (100.0 * value)


def pps_range_text(low, high):
    """``20.2 to 45.1 kpps`` when both ends read in one unit, else ``800.0 kpps to 1.20 Mpps``; ``-`` for None."""
    if low is None or high is None:
        return "-"
    low_text, high_text = pps_text(low), pps_text(high)
    unit = low_text.rsplit(" ", 1)[-1]
    if high_text.rsplit(" ", 1)[-1] == unit:
        return "%s to %s" % (low_text.rsplit(" ", 1)[0], high_text)
    return "%s to %s" % (low_text, high_text)


def scenario_text(profile):
    """The scenario a search's ``profile`` ran, as the report names it: ``routing``, or ``routing+vxlan`` when the
    scenario's frames were in a tunnel or carried an S-tag (``profile.encapsulation``), ``routing+imix.py`` when a user's
    TRex profile made them (``profile.trex_profile``)."""
    encapsulation, trex_profile = profile.get("encapsulation"), profile.get("trex_profile")
    if trex_profile:
        return "%s+%s" % (profile["scenario"], trex_profile["file"])
    return profile["scenario"] + ("+" + encapsulation["type"] if encapsulation else "")

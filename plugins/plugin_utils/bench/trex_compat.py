# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Named offsets (``"IP.src"``, ``"IP"``) for PyPI's ``trex-stl-lib`` 0.3 under upstream scapy.

The field engine of a TRex stream names where it writes: ``STLVmWrFlowVar(pkt_offset="IP.src")``,
``STLVmWrMaskFlowVar(pkt_offset="802|1Q.vlan")``, ``STLVmFixChecksumHw(l3_offset="IP", l4_offset="UDP")``,
``STLVmFixIpv4(offset="IP")``, ``"IP:1.src"`` for the second IP header. The client turns a name into
bytes when it compiles the stream, in three methods of ``CTRexScapyPktUtl``
(``trex_stl_lib/trex_stl_packet_builder_scapy.py``): ``_layer_offset``, ``layer_offset`` and
``get_field_offet`` (sic). They read ``layer._offset`` and ``field._offset``, which only the
scapy TRex ships (``external_libs/scapy-2.4.3``, which the current client brings along) sets
while it builds a packet: a layer's offset is its underlayer's plus the length of the
underlayer's own header (``self_build`` after ``post_transforms``); a field's offset is the
length of what ``self_build`` had built of its layer before it, where a run of bit fields
counts whole bytes only (a bit field has the offset of the byte its first bit is in, so
``802.1Q``'s ``vlan`` has offset 0 and ``IPv6``'s ``fl`` offset 1); its size is
``Field.get_size_bytes()``: 0 for a bit field, else the ``struct`` size of the field's format
(:func:`field_size`).
``trex-stl-lib`` 0.3 runs with the system's scapy, and upstream scapy has no ``_offset`` (it is
TRex's patch), so there every named offset fails with ``AttributeError: _offset``.

:func:`install` replaces those three methods with ones that compute the same numbers from
upstream scapy: the header lengths by building each layer's own header, the field offsets by
laying out the layer's fields with ``addfield`` as ``self_build`` does. Everything else of the
client is left alone. It is idempotent, and a no-op when the scapy the client imported sets
``_offset`` itself. :func:`~.trex.load_client` installs it when it loads the old client.
(``trex_stl_lib/services/trex_stl_service_fast_parser.py`` reads ``_offset`` too; the bench
does not use those services and this module leaves them as they are.)
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import struct

BUILDER_MODULE = "trex_stl_lib.trex_stl_packet_builder_scapy"
# Set on CTRexScapyPktUtl once its methods are replaced.
MARK = "_offload_testbed_named_offsets"


def scapy_sets_offsets(packet_class):
    """Whether the scapy of ``packet_class`` (its ``Packet``) keeps ``_offset`` itself (TRex's patched scapy)."""
    return "_offset" in getattr(packet_class, "__slots__", ()) or hasattr(packet_class(), "_offset")


def _explicit(layer):
    """The layer as ``do_build`` builds it: a layer with sets or ranges of values as its first packet."""
    return layer if layer.explicit else next(iter(layer))


def header_length(layer):
    """Bytes of ``layer``'s own header (its payload excluded), as a build lays it out."""
    layer = _explicit(layer)
    header = layer.self_build()
    for transform in layer.post_transforms:
        header = transform(header)
    return len(header)


def layers_with_offsets(packet, no_payload):
    """``(layer, offset)`` of every layer of ``packet``, top first; ``no_payload`` is scapy's ``NoPayload``."""
    offset = 0
    layer = packet
    while layer is not None and not isinstance(layer, no_payload):
        yield layer, offset
        offset += header_length(layer)
        layer = layer.payload


def field_size(field):
    """``get_size_bytes()`` of TRex's scapy: 0 for a bit field, else the ``struct`` size of its format.

    That is not always what the field takes (4 for a 3-byte field such as VXLAN's ``vni``, whose format
    is ``!I``; upstream scapy's ``sz`` says 3); the clients use only the offset.
    """
    return 0 if hasattr(field, "size") else struct.calcsize(getattr(field, "fmt", ""))


def field_offset(layer, name, raw_value):
    """``(offset within layer, size)`` of ``layer``'s first field called ``name``, or ``None``.

    ``raw_value`` is scapy's ``RawVal`` (a value written as given, as ``self_build`` does).
    """
    layer = _explicit(layer)
    built = b""
    for field in layer.fields_desc:
        if field.name == name:
            return len(built[0]) if isinstance(built, tuple) else len(built), field_size(field)
        value = layer.getfieldval(field.name)
        if isinstance(value, raw_value):
            built += bytes(value)
        else:
            built = field.addfield(layer, built, value)
    return None


def _find_layer(util, name, count, matches, error):
    """The ``count``-th layer (0: the first) for which ``matches(layer, name)``, with its offset."""
    left = count
    for layer, offset in layers_with_offsets(util.pkt, util.no_payload_class):
        if matches(layer, name):
            if left == 0:
                return layer, offset
            left -= 1
    raise error(-11, "no layer %s-%d" % (name, count))


def _methods(module):
    """The three replacements, over the builder module's scapy and exception."""
    error = module.CTRexPacketBuildException

    def _layer_offset(self, name, cnt=0):
        """(layer, offset) of layer ``name`` (its name or class name), the ``cnt``-th of them."""
        return _find_layer(self, name, cnt, lambda layer, wanted: wanted in (layer.name, layer.__class__.__name__), error)

    def layer_offset(self, name, cnt=0):
        """Offset of layer ``name`` (its scapy name), the ``cnt``-th of them."""
        return _find_layer(self, name, cnt, lambda layer, wanted: layer.name == wanted, error)[1]

    def get_field_offet(self, layer, layer_cnt, field_name):
        """(offset, size) of field ``field_name`` of layer ``layer`` (the ``layer_cnt``-th of them)."""
        found, offset = self._layer_offset(layer, layer_cnt)
        place = field_offset(found, field_name, self.raw_value_class)
        if place is None:
            raise error(-11, "No layer %s-%d." % (field_name, layer_cnt))
        return offset + place[0], place[1]

    return {"_layer_offset": _layer_offset, "layer_offset": layer_offset, "get_field_offet": get_field_offet}


def install(module=None):
    """Let ``trex-stl-lib``'s packet builder resolve named offsets under upstream scapy.

    :param module: the client's ``trex_stl_packet_builder_scapy`` module (default: import it).
    :returns: ``True`` when the builder computes named offsets with this module (now or from
        an earlier call), ``False`` when nothing was replaced: its scapy sets ``_offset`` itself, or the
        module has no ``CTRexScapyPktUtl`` (another client version).
    """
    if module is None:
        module = importlib.import_module(BUILDER_MODULE)
    util = getattr(module, "CTRexScapyPktUtl", None)
    if util is None:
        return False
    if getattr(util, MARK, False):
        return True
    if scapy_sets_offsets(module.Packet):
        return False
    raw_value = importlib.import_module(module.Packet.__module__).RawVal
    for name, method in _methods(module).items():
        setattr(util, name, method)
    util.no_payload_class = module.NoPayload
    util.raw_value_class = raw_value
    setattr(util, MARK, True)
    return True

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ``encapsulation`` option of ``trex_bench``: its argument spec, its checks, its name in the results.

``headers.py`` builds the bytes; this file says what a user may ask for and how it is recorded.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.validate import show_converted
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import headers

TYPES = ("vxlan", "geneve", "mplsogre", "qinq")
MAX_VNI, MAX_LABEL = (1 << 24) - 1, (1 << 20) - 1
# the options as the user writes them: encapsulation.vni
NAME = validate.Names()
# MPLS labels 0..15 are reserved (RFC 3032 2.1)
MIN_LABEL = 16
# what each type takes beyond type itself
_FIELDS = {"vxlan": ("vni", "udp_port", "inner_src_base", "inner_dst_base", "outer_flows"),
           "geneve": ("vni", "udp_port", "inner_src_base", "inner_dst_base", "outer_flows"),
           "mplsogre": ("label", "inner_src_base", "inner_dst_base", "outer_flows"),
           "qinq": ("s_vlan",)}


def options():
    """The suboptions of ``encapsulation`` (unset: frames without a tunnel or an S-tag)."""
    return dict(
        type=dict(type="str", choices=list(TYPES), required=True),
        # the VXLAN reference bench's VNI (its OVS tunnel port's key=99)
        vni=dict(type="int", default=99),
        udp_port=dict(type="int"),
        label=dict(type="int", default=MIN_LABEL),
        s_vlan=dict(type="int"),
        inner_src_base=dict(type="str", default="172.16.0.1"),
        inner_dst_base=dict(type="str", default="172.17.0.1"),
        outer_flows=dict(type="bool", default=True),
    )


def check(args, errors):
    """The encapsulation's values, and what they mean for the frame sizes; fills in ``udp_port`` and drops the fields
    its type does not take (the results record only what shaped the frames)."""
    encap = args.get("encapsulation")
    if not encap:
        return
    name = encap["type"]
    if name in headers.UDP_PORTS and encap["udp_port"] is None:
        encap["udp_port"] = headers.UDP_PORTS[name]
    _check_values(encap, args, errors)
    args["encapsulation"] = dict((key, encap[key]) for key in ("type",) + _FIELDS[name])
    smallest = headers.smallest_frame(args["protocol"], args["vlan"], args["encapsulation"])
    sizes = [size for size in args["frame_sizes"] if size == units.IMIX or (isinstance(size, int) and size < smallest)]
    if sizes and smallest > units.IMIX_FRAMES[0][0]:
        errors.append("frame_sizes: %s too small for %s in %s (the smallest frame is %d bytes with FCS); give sizes of %d bytes or more"
                      "%s" % (", ".join(show_converted(size) for size in sizes), args["protocol"], name, smallest, smallest,
                              " (imix has 64-byte frames)" if units.IMIX in sizes else ""))


def _check_values(encap, args, errors):
    """Each field its type takes, named ``encapsulation.<field>``."""
    name, fields = encap["type"], _FIELDS[encap["type"]]
    if "vni" in fields and not validate.is_int_in(encap["vni"], 0, MAX_VNI):
        errors.append("encapsulation.vni: %s is outside 0..%d (24 bits), the %s network identifier" % (show_converted(encap["vni"]), MAX_VNI, name))
    problems = [validate.ipv4_address(NAME("encapsulation", field), encap[field]) for field in ("inner_src_base", "inner_dst_base") if field in fields]
    if "udp_port" in fields:
        problems.append(validate.port_number(NAME("encapsulation", "udp_port"), encap["udp_port"], "UDP"))
    if "label" in fields and not validate.is_int_in(encap["label"], MIN_LABEL, MAX_LABEL):
        errors.append("encapsulation.label: %s is outside %d..%d (20 bits; 0..15 are reserved), the MPLS label"
                      % (show_converted(encap["label"]), MIN_LABEL, MAX_LABEL))
    if name == "qinq":
        if encap["s_vlan"] is None:
            errors.append("encapsulation.s_vlan: qinq needs the S-tag's VLAN ID (802.1ad), e.g. 100")
        else:
            problems.append(validate.vlan_id(NAME("encapsulation", "s_vlan"), encap["s_vlan"], "or drop encapsulation for frames without an S-tag"))
        if args["vlan"] is None:
            errors.append("vlan: qinq needs the C-tag: set vlan (802.1Q, inside the S-tag), e.g. 200")
    errors.extend(problem for problem in problems if problem)
    defaults = options()
    ignored = sorted(key for key in ("vni", "udp_port", "label", "s_vlan") if key not in fields and encap[key] is not None
                     and encap[key] != defaults[key].get("default"))
    if ignored:
        errors.append("encapsulation: %s %s not used by %s; drop %s" % (", ".join(ignored), "is" if len(ignored) == 1 else "are", name,
                                                                        "it" if len(ignored) == 1 else "them"))


def reverse(encapsulation):
    """The encapsulation of the reverse direction: the inner addresses swapped."""
    if headers.kind(encapsulation) not in headers.TUNNELS:
        return encapsulation
    return dict(encapsulation, inner_src_base=encapsulation["inner_dst_base"], inner_dst_base=encapsulation["inner_src_base"])

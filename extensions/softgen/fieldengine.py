"""TRex stateless field engine (VM) applied in software.

The client sends each stream's packet as base64 bytes plus a ``vm`` program
(``{"instructions": [...], "split_by_var": ...}``). Instead of running the
program per packet, :func:`build_ring` runs it once per distinct packet and
returns a ring of ready frames; the sender then only cycles through bytes.

Supported instructions: ``flow_var`` (inc, dec, random; 1/2/4/8 bytes),
``flow_var_rand_limit``, ``tuple_flow_var`` (``name.ip`` / ``name.port``),
``write_flow_var`` (with ``add_value`` and endianness), ``write_mask_flow_var``,
``trim_pkt_size``, ``fix_checksum_ipv4`` and ``fix_checksum_hw`` (IPv4 header
plus UDP/TCP checksum computed in software).
"""
import math
import random
import struct


class FieldEngineError(ValueError):
    """A VM program the engine cannot run (reported to the client as an RPC error)."""


SIZES = {1: 0xFF, 2: 0xFFFF, 4: 0xFFFFFFFF, 8: 0xFFFFFFFFFFFFFFFF}
DEFAULT_RING_CAP = 16384


def _req(ins, key, kind=int):
    if key not in ins:
        raise FieldEngineError("instruction '{0}' is missing field '{1}'".format(ins.get("type"), key))
    value = ins[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise FieldEngineError("instruction '{0}' field '{1}' must be an integer".format(ins.get("type"), key))
    if kind is str and not isinstance(value, str):
        raise FieldEngineError("instruction '{0}' field '{1}' must be a string".format(ins.get("type"), key))
    return value


class _Var:
    """One flow variable: ``cycle`` distinct values, ``value(k)`` for packet k."""

    def __init__(self, name, size, op, init, vmin, vmax, step, rng, limit=None):
        if size not in SIZES:
            raise FieldEngineError("flow var '{0}': size must be 1, 2, 4 or 8".format(name))
        if vmin > vmax:
            raise FieldEngineError("flow var '{0}': min_value > max_value".format(name))
        if vmax > SIZES[size]:
            raise FieldEngineError("flow var '{0}': max_value does not fit in {1} byte(s)".format(name, size))
        if op not in ("inc", "dec", "random"):
            raise FieldEngineError("flow var '{0}': unknown op '{1}'".format(name, op))
        self.name = name
        self.size = size
        self.op = op
        self.vmin = vmin
        self.span = vmax - vmin + 1
        self.init = init if vmin <= init <= vmax else vmin
        self.step = step if step > 0 else 1
        self.rng = rng
        self.limit = limit
        self._rand = None
        if op == "random":
            self.cycle = limit if limit else None
        else:
            self.cycle = self.span // math.gcd(self.step % self.span or self.span, self.span)

    def values(self, count):
        """The first ``count`` values, in packet order."""
        if self.op == "random":
            period = self.limit or count
            base = [self.vmin + self.rng.randrange(self.span) for _i in range(min(period, count))]
            return [base[k % len(base)] for k in range(count)]
        off = self.init - self.vmin
        sign = 1 if self.op == "inc" else -1
        return [self.vmin + (off + sign * k * self.step) % self.span for k in range(count)]


class _TupleVar:
    """``tuple_flow_var``: IP varies fastest, the port steps when the IP wraps."""

    def __init__(self, ins):
        self.name = _req(ins, "name", str)
        self.ip_min = _req(ins, "ip_min")
        self.ip_max = _req(ins, "ip_max")
        self.port_min = _req(ins, "port_min")
        self.port_max = _req(ins, "port_max")
        if self.ip_min > self.ip_max or self.port_min > self.port_max:
            raise FieldEngineError("tuple var '{0}': min > max".format(self.name))
        self.ips = self.ip_max - self.ip_min + 1
        ports = self.port_max - self.port_min + 1
        self.cycle = self.ips * ports
        limit = ins.get("limit_flows") or 0
        if limit:
            self.cycle = min(self.cycle, int(limit))

    def ip_values(self, count):
        return [self.ip_min + (k % self.cycle) % self.ips for k in range(count)]

    def port_values(self, count):
        ports = self.port_max - self.port_min + 1
        return [self.port_min + ((k % self.cycle) // self.ips) % ports for k in range(count)]


def ipv4_checksum(buf, off):
    """Recompute the IPv4 header checksum of the header at ``off`` in place."""
    if off + 20 > len(buf):
        return
    ihl = (buf[off] & 0x0F) * 4
    if ihl < 20 or off + ihl > len(buf):
        return
    buf[off + 10] = 0
    buf[off + 11] = 0
    total = sum(struct.unpack_from("!%dH" % (ihl // 2), buf, off))
    total = (total & 0xFFFF) + (total >> 16)
    total = (total & 0xFFFF) + (total >> 16)
    struct.pack_into("!H", buf, off + 10, ~total & 0xFFFF)


def _ones_sum(data):
    if len(data) % 2:
        data = bytes(data) + b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def l4_checksum(buf, l3_off, l4_off, l4_type):
    """Software 'hardware checksum': the IPv4 header and the UDP (11) / TCP (13) checksum."""
    if l4_off >= len(buf) or l3_off + 20 > len(buf):
        return
    version = buf[l3_off] >> 4
    csum_off = l4_off + (6 if l4_type == 11 else 16)
    if csum_off + 2 > len(buf):
        return
    if version == 4:
        ipv4_checksum(buf, l3_off)
        total_len = struct.unpack_from("!H", buf, l3_off + 2)[0]
        l4_len = max(0, min(len(buf), l3_off + total_len) - l4_off)
        pseudo = bytes(buf[l3_off + 12:l3_off + 20]) + struct.pack("!BBH", 0, buf[l3_off + 9], l4_len)
    elif version == 6:
        payload_len = struct.unpack_from("!H", buf, l3_off + 4)[0]
        l4_len = max(0, min(len(buf), l3_off + 40 + payload_len) - l4_off)
        pseudo = bytes(buf[l3_off + 8:l3_off + 40]) + struct.pack("!IxxxB", l4_len, 6 if l4_type == 13 else 17)
    else:
        return
    buf[csum_off] = 0
    buf[csum_off + 1] = 0
    total = _ones_sum(pseudo) + _ones_sum(bytes(buf[l4_off:l4_off + l4_len]))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    csum = ~total & 0xFFFF
    if csum == 0 and l4_type == 11:
        csum = 0xFFFF
    struct.pack_into("!H", buf, csum_off, csum)


class Program:
    """A validated VM program for one packet template."""

    def __init__(self, vm, pkt_len, seed=None):
        vm = vm or {}
        if not isinstance(vm, dict):
            raise FieldEngineError("'vm' must be an object")
        instructions = vm.get("instructions", [])
        if not isinstance(instructions, list):
            raise FieldEngineError("'vm.instructions' must be a list")
        self.rng = random.Random(seed)
        self.vars = {}
        self.steps = []
        self.pkt_len = pkt_len
        for ins in instructions:
            self._compile(ins)

    def _compile(self, ins):
        if not isinstance(ins, dict):
            raise FieldEngineError("VM instruction must be an object")
        kind = ins.get("type")
        if kind == "flow_var":
            name = _req(ins, "name", str)
            self.vars[name] = _Var(name, _req(ins, "size"), _req(ins, "op", str), ins.get("init_value", _req(ins, "min_value")),
                                   _req(ins, "min_value"), _req(ins, "max_value"), ins.get("step", 1), self.rng)
        elif kind == "flow_var_rand_limit":
            name = _req(ins, "name", str)
            rng = random.Random(ins.get("seed")) if ins.get("seed") else self.rng
            self.vars[name] = _Var(name, _req(ins, "size"), "random", 0, _req(ins, "min_value"), _req(ins, "max_value"),
                                   1, rng, limit=max(1, _req(ins, "limit")))
        elif kind == "tuple_flow_var":
            tup = _TupleVar(ins)
            self.vars[tup.name + ".ip"] = ("tuple_ip", tup)
            self.vars[tup.name + ".port"] = ("tuple_port", tup)
        elif kind in ("write_flow_var", "write_mask_flow_var"):
            name = _req(ins, "name", str)
            if name not in self.vars:
                raise FieldEngineError("write to unknown flow var '{0}'".format(name))
            offset = _req(ins, "pkt_offset")
            size = self._var_size(name) if kind == "write_flow_var" else _req(ins, "pkt_cast_size")
            if size not in SIZES or offset < 0 or offset + size > self.pkt_len:
                raise FieldEngineError("write of '{0}' at offset {1} is outside the packet".format(name, offset))
            self.steps.append((kind, name, offset, size, ins))
        elif kind == "trim_pkt_size":
            name = _req(ins, "name", str)
            if name not in self.vars:
                raise FieldEngineError("trim by unknown flow var '{0}'".format(name))
            self.steps.append((kind, name, 0, 0, ins))
        elif kind == "fix_checksum_ipv4":
            offset = _req(ins, "pkt_offset")
            if offset + 20 > self.pkt_len:
                raise FieldEngineError("fix_checksum_ipv4 offset {0} is outside the packet".format(offset))
            self.steps.append((kind, None, offset, 0, ins))
        elif kind == "fix_checksum_hw":
            l2_len = _req(ins, "l2_len")
            l3_len = _req(ins, "l3_len")
            self.steps.append((kind, None, l2_len, l3_len, ins))
        else:
            raise FieldEngineError("unsupported VM instruction type '{0}'".format(kind))

    def _var_size(self, name):
        var = self.vars[name]
        if isinstance(var, tuple):
            return 4 if var[0] == "tuple_ip" else 2
        return var.size

    def cycle(self, cap):
        """Number of distinct packets before the sequence repeats (capped)."""
        length = 1
        for var in self.vars.values():
            cyc = var[1].cycle if isinstance(var, tuple) else var.cycle
            if cyc is None:
                return cap
            length = length * cyc // math.gcd(length, cyc)
            if length >= cap:
                return cap
        return length

    def _columns(self, count):
        cols = {}
        for name, var in self.vars.items():
            if isinstance(var, tuple):
                cols[name] = var[1].ip_values(count) if var[0] == "tuple_ip" else var[1].port_values(count)
            else:
                cols[name] = var.values(count)
        return cols

    def build(self, pkt, cap=DEFAULT_RING_CAP):  # pylint: disable=too-many-locals
        """Return the ring of frames (list of bytes)."""
        template = bytearray(pkt)
        if not self.steps:
            return [bytes(template)]
        count = self.cycle(cap)
        cols = self._columns(count)
        ring = []
        for k in range(count):
            buf = bytearray(template)
            for kind, name, offset, size, ins in self.steps:
                if kind == "write_flow_var":
                    value = (cols[name][k] + ins.get("add_value", 0)) & SIZES[size]
                    buf[offset:offset + size] = value.to_bytes(size, "big" if ins.get("is_big_endian", True) else "little")
                elif kind == "write_mask_flow_var":
                    order = "big" if ins.get("is_big_endian", True) else "little"
                    value = cols[name][k] + ins.get("add_value", 0)
                    shift = ins.get("shift", 0)
                    value = value << shift if shift >= 0 else value >> -shift
                    mask = ins.get("mask", SIZES[size]) & SIZES[size]
                    old = int.from_bytes(buf[offset:offset + size], order)
                    buf[offset:offset + size] = ((old & ~mask) | (value & mask)).to_bytes(size, order)
                elif kind == "trim_pkt_size":
                    new_len = max(14, min(len(buf), cols[name][k]))
                    del buf[new_len:]
                elif kind == "fix_checksum_ipv4":
                    ipv4_checksum(buf, offset)
                else:
                    l4_type = ins.get("l4_type", 11)
                    if l4_type in (11, 13):
                        l4_checksum(buf, offset, offset + size, l4_type)
                    elif buf[offset] >> 4 == 4:
                        ipv4_checksum(buf, offset)
            ring.append(bytes(buf))
        return ring


def build_ring(pkt, vm, cap=DEFAULT_RING_CAP, seed=None):
    """Compile ``vm`` for ``pkt`` and return the ring of frames."""
    return Program(vm, len(pkt), seed).build(pkt, cap)

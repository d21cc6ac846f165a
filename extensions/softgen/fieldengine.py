"""TRex stateless field engine (VM) applied in software.

The client sends each stream's packet as base64 bytes plus a ``vm`` program
(``{"instructions": [...], "split_by_var": ...}``). Instead of running the
program per packet, :func:`build_ring` runs it once per distinct packet and
returns a ring of ready frames; the sender then only cycles through bytes.

A program whose period (the packets before its sequence repeats) is longer
than the ring (``cap``, :data:`DEFAULT_RING_CAP` frames; a flow_var over a
million source addresses) does not get a ring of its whole period:
:func:`build_source` returns a ring of ``cap`` frames and a :class:`FlowCycle`
whose ``take(n)`` gives the next ``n`` frames of the period, which the sender
writes into the ring's slots before it sends them (``cycle`` of the rings in
:mod:`softgen.fastio`). Every packet of the period then goes out in order;
only those streams pay for building frames while sending, a shorter program
keeps its ring as before.

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

    def values(self, count, start=0):
        """The values of packets ``start`` .. ``start + count - 1``, in packet order (random: drawn anew, ``start`` ignored)."""
        if self.op == "random":
            period = self.limit or count
            base = [self.vmin + self.rng.randrange(self.span) for _i in range(min(period, count))]
            return [base[k % len(base)] for k in range(count)]
        off = self.init - self.vmin
        sign = 1 if self.op == "inc" else -1
        return [self.vmin + (off + sign * k * self.step) % self.span for k in range(start, start + count)]


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

    def ip_values(self, count, start=0):
        return [self.ip_min + (k % self.cycle) % self.ips for k in range(start, start + count)]

    def port_values(self, count, start=0):
        ports = self.port_max - self.port_min + 1
        return [self.port_min + ((k % self.cycle) // self.ips) % ports for k in range(start, start + count)]


# The frame check sequence: the 4 bytes every Ethernet frame carries on the wire, which frame sizes count.
FCS = 4


def ipv4_checksum(buf, off):
    """Recompute the IPv4 header checksum of the header at ``off`` in place."""
    if off + 20 > len(buf):
        return
    ihl = (buf[off] & 0x0F) * 4
    if ihl < 20 or off + ihl > len(buf):
        return
    buf[off + 10] = 0
    buf[off + 11] = 0
    struct.pack_into("!H", buf, off + 10, inet_checksum(bytes(buf[off:off + ihl])))


def _ones_sum(data):
    """The 16-bit ones' complement sum of ``data`` (RFC 1071), folded."""
    if len(data) % 2:
        data = bytes(data) + b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def inet_checksum(data):
    """The Internet checksum of ``data`` (RFC 1071): IPv4 header, ICMP, and UDP/TCP with their pseudo-header."""
    return ~_ones_sum(data) & 0xFFFF


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

    def period(self):
        """Number of distinct packets before the sequence repeats, uncapped; None when a variable is random without a limit."""
        length = 1
        for var in self.vars.values():
            cyc = var[1].cycle if isinstance(var, tuple) else var.cycle
            if cyc is None:
                return None
            length = length * cyc // math.gcd(length, cyc)
        return length

    def cycle(self, cap):
        """Number of distinct packets before the sequence repeats (capped)."""
        period = self.period()
        return cap if period is None else min(period, cap)

    def streamable(self):
        """Whether packet k of the period can be built on its own (:meth:`frames` at any start): no random variable, no trim."""
        randoms = [var for var in self.vars.values() if not isinstance(var, tuple) and var.op == "random"]
        return bool(self.steps) and not randoms and not any(step[0] == "trim_pkt_size" for step in self.steps)

    def columns(self, count, start=0):
        cols = {}
        for name, var in self.vars.items():
            if isinstance(var, tuple):
                cols[name] = var[1].ip_values(count, start) if var[0] == "tuple_ip" else var[1].port_values(count, start)
            else:
                cols[name] = var.values(count, start)
        return cols

    def build(self, pkt, cap=DEFAULT_RING_CAP):
        """Return the ring of frames (list of bytes): the first ``cycle(cap)`` packets."""
        if not self.steps:
            return [bytes(pkt)]
        return self.frames(pkt, 0, self.cycle(cap))

    def frames(self, pkt, start, count):  # pylint: disable=too-many-locals
        """The frames of packets ``start`` .. ``start + count - 1`` of the sequence (list of bytes)."""
        template = bytearray(pkt)
        cols = self.columns(count, start)
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


class NotPatchable(Exception):
    """A program :class:`Patcher` cannot build (the generic per-packet path builds it)."""


def _overlaps(start, end, low, high):
    return start < high and low < end


class Patcher:
    """The frames of a program of ``write_flow_var`` steps followed by checksum steps (IPv4 header, UDP/TCP over IPv4), built
    by rewriting only the written bytes and updating each checksum from the sum of the rest of its bytes, summed once.

    Gives the same frames as ``Program.frames``; refuses (:class:`NotPatchable`) what it cannot: masks, trims, writes after a
    checksum, writes into a checksum field or the fields that size a checksum (version, IHL, total length, protocol), IPv6,
    checksums inside another checksum's bytes, packets too short for their checksums.
    """

    def __init__(self, program, pkt):
        self.template = bytes(pkt)
        self.writes, self.jobs = [], []
        for kind, name, offset, size, ins in program.steps:
            if kind == "write_flow_var" and not self.jobs:
                self.writes.append((name, offset, size, "big" if ins.get("is_big_endian", True) else "little", ins.get("add_value", 0)))
            elif kind == "fix_checksum_ipv4":
                self._ipv4_job(offset)
            elif kind == "fix_checksum_hw" and ins.get("l4_type", 11) in (11, 13):
                self._ipv4_job(offset)
                self._l4_job(offset, offset + size, ins.get("l4_type", 11))
            elif kind == "fix_checksum_hw" and pkt[offset] >> 4 == 4:
                self._ipv4_job(offset)
            elif kind != "fix_checksum_hw":
                raise NotPatchable(kind)
        self._check()
        self.jobs = [self._compiled(*job) for job in self.jobs]

    def _ipv4_job(self, off):
        pkt = self.template
        if off + 20 > len(pkt) or pkt[off] >> 4 != 4 or (pkt[off] & 0x0F) * 4 < 20 or off + (pkt[off] & 0x0F) * 4 > len(pkt):
            raise NotPatchable("IPv4 header")
        self.jobs.append((off + 10, [(off, off + (pkt[off] & 0x0F) * 4, off)], 0, False, off))

    def _l4_job(self, l3_off, l4_off, l4_type):
        pkt = self.template
        csum_off = l4_off + (6 if l4_type == 11 else 16)
        if l4_off >= len(pkt) or l3_off + 20 > len(pkt) or csum_off + 2 > len(pkt) or pkt[l3_off] >> 4 != 4:
            raise NotPatchable("UDP/TCP checksum")
        total_len = struct.unpack_from("!H", pkt, l3_off + 2)[0]
        l4_len = max(0, min(len(pkt), l3_off + total_len) - l4_off)
        # the pseudo header: the addresses from the packet, then zero, protocol and length
        regions = [(l3_off + 12, l3_off + 20, l3_off + 12), (l4_off, l4_off + l4_len, l4_off)]
        self.jobs.append((csum_off, regions, pkt[l3_off + 9] + l4_len, l4_type == 11, l3_off))

    def _check(self):
        fields = [(job[0], job[0] + 2) for job in self.jobs] + [(job[4], job[4] + 4) for job in self.jobs] + \
                 [(job[4] + 9, job[4] + 10) for job in self.jobs]
        for _name, offset, size, _order, _add in self.writes:
            if any(_overlaps(offset, offset + size, low, high) for low, high in fields):
                raise NotPatchable("a write into a checksum or a field that sizes one")
        for job in self.jobs:
            for other in self.jobs:
                if other is not job and other[0] != job[0] and any(_overlaps(other[0], other[0] + 2, low, high) for low, high, _o in job[1]):
                    raise NotPatchable("a checksum inside another checksum's bytes")

    def _compiled(self, csum_off, regions, constant, udp, _l3_off):
        """``(checksum offset, base sum, spans, udp)``: the base is the regions' sum without the written bytes and the checksum."""
        buf = bytearray(self.template)
        buf[csum_off:csum_off + 2] = b"\0\0"
        spans = []
        for index, (_name, offset, size, order, _add) in enumerate(self.writes):
            buf[offset:offset + size] = bytes(size)
            for low, high, origin in regions:
                start, end = max(low, offset), min(high, offset + size)
                if start < end:
                    odd = (start - origin) % 2
                    # a whole big-endian write of 16-bit words: its sum comes from the value itself
                    whole = index if (start, end, odd, order) == (offset, offset + size, 0, "big") and size % 2 == 0 else None
                    spans.append((start, end, odd, "!%dH" % ((end - start + odd + 1) // 2), (end - start + odd) % 2, whole))
        base = constant + sum(_region_sum(buf, low, high, origin) for low, high, origin in regions)
        return csum_off, base, spans, udp

    def frames(self, cols, count):
        """The frames of the columns' first ``count`` packets."""
        ring = []
        for k in range(count):
            buf = bytearray(self.template)
            sums = []
            for name, offset, size, order, add in self.writes:
                value = (cols[name][k] + add) & SIZES[size]
                buf[offset:offset + size] = value.to_bytes(size, order)
                sums.append((value >> 16) + (value & 0xFFFF) if size == 4 else value if size == 2 else None)
            for csum_off, total, spans, udp in self.jobs:
                for start, end, odd, fmt, pad, whole in spans:
                    if whole is not None and sums[whole] is not None:
                        total += sums[whole]
                    elif odd or pad:
                        total += sum(struct.unpack(fmt, b"\0" * odd + bytes(buf[start:end]) + b"\0" * pad))
                    else:
                        total += sum(struct.unpack_from(fmt, buf, start))
                while total >> 16:
                    total = (total & 0xFFFF) + (total >> 16)
                csum = ~total & 0xFFFF
                struct.pack_into("!H", buf, csum_off, 0xFFFF if udp and csum == 0 else csum)
            ring.append(bytes(buf))
        return ring


def _region_sum(buf, low, high, origin):
    """The sum of the 16-bit words of ``buf[low:high]``, words counted from ``origin`` (unfolded)."""
    data = b"\0" * ((low - origin) % 2) + bytes(buf[low:high])
    if len(data) % 2:
        data += b"\0"
    return sum(struct.unpack("!%dH" % (len(data) // 2), data))


def build_ring(pkt, vm, cap=DEFAULT_RING_CAP, seed=None):
    """Compile ``vm`` for ``pkt`` and return the ring of frames."""
    return Program(vm, len(pkt), seed).build(pkt, cap)


class FlowCycle:
    """The whole period of a program longer than the ring, ``take(n)`` frames at a time, in order, round and round.

    ``count``: the frames of the ring it refills; ``period``: the distinct packets; ``position``: the next packet's.
    A sender that may send fewer frames than it wrote (``sendmmsg``) writes ``peek(n)`` and then ``advance(sent)``:
    the frames it did not send come again first.
    """

    def __init__(self, program, pkt, count):
        self.program = program
        self.pkt = bytes(pkt)
        self.count = count
        self.period = program.period()
        self.position = 0
        try:
            self.patcher = Patcher(program, pkt)
        except NotPatchable:
            self.patcher = None

    def peek(self, n):
        """The next ``n`` frames of the period (wrapping at its end), without moving on."""
        if self.patcher is None:
            return self.program.frames(self.pkt, self.position, n)
        return self.patcher.frames(self.program.columns(n, self.position), n)

    def advance(self, n):
        """Move on by ``n`` frames (those sent)."""
        self.position = (self.position + n) % self.period

    def take(self, n):
        """The next ``n`` frames of the period, moving on past them."""
        frames = self.peek(n)
        self.advance(n)
        return frames


def build_source(pkt, vm, cap=DEFAULT_RING_CAP, seed=None):
    """``(frames, cycle)``: the ring of frames, and the :class:`FlowCycle` that refills it when the program's period is longer
    than ``cap`` (None otherwise: the ring is the whole period, or the program cannot be built from any packet on)."""
    program = Program(vm, len(pkt), seed)
    period = program.period()
    if period is None or period <= cap or not program.streamable():
        return program.build(pkt, cap), None
    cycle = FlowCycle(program, pkt, cap)
    return program.frames(pkt, 0, cap), cycle

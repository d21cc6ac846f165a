"""An ASTF profile as TRex's client uploads it (``ASTFProfile.to_json``), checked and compiled for :mod:`softgen.astfworker`.

The JSON has ``buf_list`` (base64 payloads), ``ip_gen_dist_list`` (client
``dir: c`` and server ``dir: s`` address ranges), ``program_list`` (each a
``commands`` list, ``stream: false`` for UDP) and ``templates`` (a
``client_template`` with ``cps``, destination ``port``, ``program_index`` and
``ip_gen``; a ``server_template`` with ``assoc`` ports and its
``program_index``; an optional ``tg_id`` into ``tg_names``).

softgen carries the programs out with the kernel's sockets, so it takes the
commands a socket can do: ``tx``/``rx`` (TCP), ``tx_msg``/``rx_msg`` (UDP),
``delay``, ``delay_rnd``, ``reset``, ``nc``, ``connect``, ``close_msg``,
``set_var`` and ``jmp_nz`` (loops), and ``keepalive`` (a UDP flow's idle
time). Anything else is refused at load, naming the program and the command,
as TRex refuses a profile it cannot build.
"""
import base64
import ipaddress

COMMANDS = {
    True: {"tx": ("buf_index",), "rx": ("min_bytes",), "delay": ("usec",), "delay_rnd": ("min_usec", "max_usec"), "reset": (),
           "nc": (), "connect": (), "set_var": ("id", "val"), "jmp_nz": ("id", "offset")},
    False: {"tx_msg": ("buf_index",), "rx_msg": ("min_pkts",), "delay": ("usec",), "delay_rnd": ("min_usec", "max_usec"),
            "keepalive": ("msec",), "close_msg": (), "set_var": ("id", "val"), "jmp_nz": ("id", "offset")},
}


class ProfileError(ValueError):
    """The profile cannot run here; the message names the part of the profile."""


def _field(obj, key, where, kind=int):
    if not isinstance(obj, dict) or key not in obj:
        raise ProfileError("{0}: '{1}' is missing".format(where, key))
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ProfileError("{0}: '{1}' is {2!r}, not an integer".format(where, key, value))
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ProfileError("{0}: '{1}' is {2!r}, not a number".format(where, key, value))
    return value


def _buffers(profile):
    try:
        return [base64.b64decode(text) for text in profile.get("buf_list", [])]
    except (TypeError, ValueError) as error:
        raise ProfileError("buf_list: {0}".format(error)) from error


def _program(raw, index, buffers):
    where = "program_list[{0}]".format(index)
    stream = raw.get("stream", True) is not False
    commands = raw.get("commands")
    if not isinstance(commands, list) or not commands:
        raise ProfileError("{0}: no commands".format(where))
    known = COMMANDS[stream]
    compiled = []
    for position, command in enumerate(commands):
        at = "{0}.commands[{1}]".format(where, position)
        name = command.get("name") if isinstance(command, dict) else None
        if name not in known:
            raise ProfileError("{0}: command {1!r} is not supported in a {2} program by softgen (supported: {3})".format(
                at, name, "TCP" if stream else "UDP", ", ".join(sorted(known))))
        step = {"name": name}
        for key in known[name]:
            step[key] = _field(command, key, at, str if key == "id" else int)
        if "buf_index" in step:
            if not 0 <= step["buf_index"] < len(buffers):
                raise ProfileError("{0}: buf_index {1} is not in buf_list".format(at, step["buf_index"]))
            step["data"] = buffers[step.pop("buf_index")]
        if name in ("rx", "rx_msg") and command.get("clear"):
            step["clear"] = True
        if name == "jmp_nz" and not 0 <= position + step["offset"] < len(commands):
            raise ProfileError("{0}: jumps outside the program".format(at))
        compiled.append(step)
    return {"stream": stream, "commands": compiled}


def _range(dist, where):
    try:
        first = ipaddress.IPv4Address(_field(dist, "ip_start", where, str))
        last = ipaddress.IPv4Address(_field(dist, "ip_end", where, str))
    except ipaddress.AddressValueError as error:
        raise ProfileError("{0}: {1}".format(where, error)) from error
    if last < first:
        raise ProfileError("{0}: ip_end {1} is before ip_start {2}".format(where, last, first))
    return {"first": int(first), "count": int(last) - int(first) + 1, "random": dist.get("distribution") == "rand"}


def _client(raw, index, dists, programs):
    where = "templates[{0}].client_template".format(index)
    gen = raw.get("ip_gen") or {}
    ranges = {}
    for side in ("dist_client", "dist_server"):
        ref = _field(gen.get(side), "index", "{0}.ip_gen.{1}".format(where, side))
        if not 0 <= ref < len(dists):
            raise ProfileError("{0}.ip_gen.{1}: index {2} is not in ip_gen_dist_list".format(where, side, ref))
        ranges[side] = _range(dists[ref], "ip_gen_dist_list[{0}]".format(ref))
    cps = _field(raw, "cps", where, float)
    if cps <= 0:
        raise ProfileError("{0}: cps {1} must be above 0".format(where, cps))
    program = _program_ref(raw, where, programs)
    return {"cps": float(cps), "port": _field(raw, "port", where), "program": program, "clients": ranges["dist_client"],
            "servers": ranges["dist_server"], "limit": raw.get("limit")}


def _program_ref(raw, where, programs):
    ref = _field(raw, "program_index", where)
    if not 0 <= ref < len(programs):
        raise ProfileError("{0}: program_index {1} is not in program_list".format(where, ref))
    return programs[ref]


def _server(raw, index, programs):
    where = "templates[{0}].server_template".format(index)
    assoc = raw.get("assoc") or [{"port": 80}]
    ports = [_field(rule, "port", "{0}.assoc[{1}]".format(where, n)) for n, rule in enumerate(assoc)]
    return {"ports": ports, "program": _program_ref(raw, where, programs)}


def compile_profile(profile):
    """The templates of ``profile`` (the uploaded JSON, parsed) as the worker runs them; raises :class:`ProfileError`."""
    if not isinstance(profile, dict):
        raise ProfileError("the profile is not a JSON object")
    buffers = _buffers(profile)
    programs = [_program(raw, n, buffers) for n, raw in enumerate(profile.get("program_list") or [])]
    dists = profile.get("ip_gen_dist_list") or []
    names = profile.get("tg_names") or []
    templates = []
    for index, raw in enumerate(profile.get("templates") or []):
        client = _client(raw.get("client_template"), index, dists, programs)
        server = _server(raw.get("server_template") or {}, index, programs)
        if client["program"]["stream"] != server["program"]["stream"]:
            raise ProfileError("templates[{0}]: the client's program and the server's differ in protocol".format(index))
        tg_id = raw.get("tg_id", 0)
        if not isinstance(tg_id, int) or not 0 <= tg_id <= len(names):
            raise ProfileError("templates[{0}]: tg_id {1!r} is not in tg_names".format(index, tg_id))
        templates.append({"client": client, "server": server, "udp": not client["program"]["stream"], "tg_id": tg_id})
    if not templates:
        raise ProfileError("the profile has no templates")
    return {"templates": templates, "tg_names": list(names)}


def address(ip_range, serial):
    """The ``serial``-th address of a range (``_range``) for a flow: in order, wrapping."""
    return str(ipaddress.IPv4Address(ip_range["first"] + serial % ip_range["count"]))

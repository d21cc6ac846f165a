"""TRex's ASTF methods (a server started with ``--astf``): the context, the profile's state machine, the counters.

``src/stx/astf/trex_astf_rpc_cmds.cpp`` and ``trex_astf.cpp``: acquire and
release of the context (every port with it), ``sync``, ``profile_fragment``
(the upload), ``profile_clear``, ``start``, ``stop``, ``update``,
``get_profile_list``, ``inc_epoch``, the counters (``get_counter_desc``,
``get_counter_values``, ``get_total_counter_values``, the dynamic ones, the
template groups') and the events 50 (the context's state), 60 (a profile's
state) and 61 (a profile cleared), each with the context's ``epoch``. A
profile goes Idle -> Loaded (upload) -> Parse (first start) -> Build -> TX ->
Cleanup -> Loaded, and Delete -> Idle when cleared, as TRex's; every change
publishes 60, then 50 when the context's state changed.

softgen runs one profile at a time. Each port's side of it (client or
server: TRex's even and odd ports, or all of one side with ``--astf-side``)
is a :mod:`softgen.astfworker` in the port's namespace. Latency streams
(``latency_pps``) are refused: the first byte's latency of each connection is
in the counters (``sg_first_byte_*``).
"""
import hashlib
import threading

from softgen.astf_flows import COUNTERS
from softgen.astf_port import AstfSide
from softgen.protocol import DEFAULT_PROFILE, _param, _token, exec_err

IDLE, LOADED, PARSE, BUILD, TX, CLEANUP, DELETE = range(7)
STATE_NAMES = ("Idle", "Loaded profile", "Parsing profile", "Setup traffic", "Transmitting", "Cleanup traffic", "Delete profile")
# the context's state from its profiles' (trex_astf.cpp update_astf_state): the first of these any profile is in
STATE_PRIORITY = (TX, BUILD, PARSE, CLEANUP, LOADED, DELETE)
EV_ASTF_STATE = 50
EV_ASTF_PROFILE_STATE = 60
EV_ASTF_PROFILE_CLEARED = 61
# seconds between a profile's Delete and its clearing (TRex's data path cleans up meanwhile)
CLEAR_DELAY = 0.3
# the counters whose increase is an error (TRex's "error" counters among softgen's)
ERROR_COUNTERS = {"tcps_conndrops", "tcps_drops", "udps_keepdrops", "err_flow_overflow"}
# counters that are not sums: current values and maxima, never made relative to a clear
ABSOLUTE = {"m_active_flows", "m_est_flows", "sg_active_flows_max", "sg_first_byte_usec_max"}
HELP = {"tcps_connattempt": "connections initiated", "tcps_accepts": "connections accepted", "tcps_connects": "connections established",
        "tcps_closed": "conn. closed (includes drops)", "tcps_conndrops": "embryonic connections dropped",
        "tcps_drops": "connections dropped", "tcps_sndbyte": "data bytes sent", "tcps_rcvbyte": "data bytes received",
        "tcps_sndtotal": "sends of data", "tcps_rcvtotal": "receives of data", "udps_connects": "connections established",
        "udps_accepts": "connections accepted", "udps_closed": "conn. closed (includes drops)", "udps_sndpkt": "packets sent",
        "udps_rcvpkt": "packets received", "udps_sndbyte": "data bytes sent", "udps_rcvbyte": "data bytes received",
        "udps_keepdrops": "flows ended without their answer", "m_active_flows": "active open flows",
        "m_est_flows": "active established flows", "sg_active_flows_max": "softgen: most open flows at once",
        "sg_first_byte_count": "softgen: flows that received their first byte",
        "sg_first_byte_usec_sum": "softgen: sum of the first byte's latency", "sg_first_byte_usec_max": "softgen: the first byte's latency, max",
        "err_flow_overflow": "too many flows"}
ASTF_OWNED = {"release", "profile_fragment", "profile_clear", "start", "stop", "update", "get_profile_list", "inc_epoch", "service",
              "start_latency", "stop_latency", "update_latency"}


def counter_desc():
    return [{"id": index, "name": name, "help": HELP.get(name, name), "units": "usec" if "usec" in name else "",
             "zero": name in ("m_active_flows", "m_est_flows"), "info": "error" if name in ERROR_COUNTERS else "info",
             "real": True, "abs": name in ABSOLUTE} for index, name in enumerate(COUNTERS)]


def new_profile():
    return {"state": IDLE, "text": "", "hash": None, "parsed": None, "running": set()}


class AstfMixin:
    """The ASTF methods of :class:`softgen.server.SoftGenServer`; ``astf_setup`` makes them the server's."""

    def astf_setup(self, side):
        """ASTF mode: these methods replace the stateless ones of the same name (TRex's one RPC table per mode)."""
        self.astf = {"owner": "", "handler": None, "epoch": 1, "state": IDLE, "run": 0, "refreshed": None,
                     "profiles": {DEFAULT_PROFILE: new_profile()}}
        self.astf_sides = [AstfSide(port, side or ("client" if port.index % 2 == 0 else "server")) for port in self.ports]
        for attr in dir(self):
            if attr.startswith("astf_rpc_"):
                self.methods[attr[len("astf_rpc_"):]] = getattr(self, attr)
        self.owned -= ASTF_OWNED

    def astf_start_workers(self, timeout=10.0):
        for side in self.astf_sides:
            side.spawn(self.astf_worker_done)
        for side in self.astf_sides:
            if not side.hello.wait(timeout):
                raise RuntimeError("port {0}: the ASTF worker did not start".format(side.port.index))

    # ---------------------------------------------------------------- state
    def astf_verify(self, params):
        handler = _param(params, "handler", "string")
        if not self.astf["handler"] or handler != self.astf["handler"]:
            raise exec_err("must acquire the context for this operation")

    def astf_profile(self, params, create=False):
        pid = _param(params, "profile_id", "string", DEFAULT_PROFILE)
        profiles = self.astf["profiles"]
        if pid not in profiles:
            if not create:
                raise exec_err("Invalid profile : {0}".format(pid))
            profiles[pid] = new_profile()
            self.astf_set_state(pid, IDLE)
        return pid, profiles[pid]

    def astf_set_state(self, pid, state, error=None):
        """A profile's new state: event 60, then 50 when the context's state changed."""
        self.astf["profiles"][pid]["state"] = state
        data = {"profile_id": pid, "state": state, "epoch": self.astf["epoch"]}
        if error:
            data["error"] = error
        self.event(EV_ASTF_PROFILE_STATE, data)
        self.astf_overall()

    def astf_overall(self):
        """The context's state from its profiles'; event 50 when it changed."""
        states = {profile["state"] for profile in self.astf["profiles"].values()}
        overall = next((s for s in STATE_PRIORITY if s in states), IDLE)
        overall = LOADED if overall == DELETE else overall
        if overall != self.astf["state"]:
            self.astf["state"] = overall
            self.event(EV_ASTF_STATE, {"state": overall, "epoch": self.astf["epoch"]})

    def astf_expect(self, profile, *states):
        if profile["state"] not in states:
            raise exec_err("Invalid state: {0}, should be one of following: {1}".format(
                STATE_NAMES[profile["state"]], ",".join(STATE_NAMES[s] for s in states)))

    # ---------------------------------------------------------------- the context
    def astf_rpc_acquire(self, params):
        user = _param(params, "user", "string")
        force = _param(params, "force", "bool", False)
        session_id = _param(params, "session_id", "uint", 0)
        if self.astf["owner"] and not force:
            raise exec_err("context is already taken (use 'force' argument to override)")
        handler = _token()
        self.astf.update(owner=user, handler=handler)
        for port in self.ports:
            port.owner, port.handler, port.session_id, port.generation = user, handler, session_id, self.caller
        self._owners_changed()
        return {"ports": {str(port.index): handler for port in self.ports}, "handler": handler}

    def astf_rpc_release(self, params):
        self.astf_verify(params)
        self.astf.update(owner="", handler=None)
        for port in self.ports:
            port.owner, port.handler, port.session_id = "", None, None
        self._owners_changed()
        return {}

    def astf_rpc_sync(self, _params):
        return {"epoch": self.astf["epoch"], "state": self.astf["state"],
                "state_profile": {pid: profile["state"] for pid, profile in self.astf["profiles"].items()}}

    def astf_rpc_inc_epoch(self, params):
        self.astf_verify(params)
        if self.astf["state"] in (PARSE, BUILD, CLEANUP, DELETE):
            raise exec_err("Can't increase epoch in current state: {0}".format(STATE_NAMES[self.astf["state"]]))
        self.astf["epoch"] += 1
        return {"epoch": self.astf["epoch"]}

    def astf_rpc_get_profile_list(self, params):
        self.astf_verify(params)
        return sorted(self.astf["profiles"])

    def astf_rpc_service(self, params):
        self.astf_verify(params)
        _param(params, "enabled", "bool")
        return {}

    def astf_rpc_topo_get(self, _params):
        return {"topo_data": {}}

    def astf_rpc_get_ignored_ips(self, _params):
        return []

    def astf_rpc_get_ignored_macs(self, _params):
        return []

    # ---------------------------------------------------------------- the profile
    def astf_rpc_profile_fragment(self, params):
        self.astf_verify(params)
        pid, profile = self.astf_profile(params, create=True)
        fragment = _param(params, "fragment", "string")
        first = _param(params, "frag_first", "bool", False)
        last = _param(params, "frag_last", "bool", False)
        if first and not last:
            md5 = _param(params, "md5", "string")
            for other_pid, other in self.astf["profiles"].items():
                if other["hash"] == md5:
                    if other_pid != pid:
                        raise exec_err("Fragment already added on other profile_id")
                    return {"matches_loaded": True}
        if first:
            self.astf_one_profile(pid)
            self.astf_expect(profile, IDLE, LOADED)
            if profile["state"] == LOADED:
                self.astf_set_state(pid, IDLE)
            profile.update(text="", hash=None, compiled=None)
        self.astf_expect(profile, IDLE)
        profile["text"] += fragment
        if last:
            profile["hash"] = hashlib.md5(profile["text"].encode()).hexdigest()
            self.astf_set_state(pid, LOADED)
        return {}

    def astf_one_profile(self, pid):
        for other_pid, other in self.astf["profiles"].items():
            if other_pid != pid and other["state"] != IDLE:
                raise exec_err("softgen runs one ASTF profile at a time: profile '{0}' is {1}; clear it first".format(
                    other_pid, STATE_NAMES[other["state"]]))

    def astf_rpc_profile_clear(self, params):
        """A loaded profile goes to Delete now, and is cleared (61, then Idle) a moment later, on the events thread: the
        client waits to see Delete first, and forgets what it saw of the profile when the 61 comes."""
        self.astf_verify(params)
        pid, profile = self.astf_profile(params)
        self.astf_expect(profile, IDLE, LOADED)
        if profile["state"] == IDLE:
            self.astf_cleared(pid)
            return {}
        self.astf_set_state(pid, DELETE)
        timer = threading.Timer(CLEAR_DELAY, self.state_events.put, args=(("timer", {"ev": "astf_cleared", "profile_id": pid}),))
        timer.daemon = True
        timer.start()
        return {}

    def astf_cleared(self, pid):
        """The profile's workers unloaded it: event 61, then the default profile Idle again (another one is gone)."""
        profile = self.astf["profiles"].get(pid)
        if profile is None:
            return
        if profile["parsed"] is not None:
            for side in self.astf_sides:
                side.call(cmd="unload")
        self.event(EV_ASTF_PROFILE_CLEARED, {"profile_id": pid, "epoch": self.astf["epoch"]})
        if pid == DEFAULT_PROFILE:
            self.astf["profiles"][pid] = new_profile()
            self.astf_set_state(pid, IDLE)
        else:
            del self.astf["profiles"][pid]
            self.astf_overall()

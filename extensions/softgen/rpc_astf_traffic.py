"""TRex's ASTF traffic methods: start, stop and update a profile, its counters, and the end of a run.

``start`` parses the profile the first time (the workers load it: the server
side listens from then on), clears the counters of the run, moves the epoch
on, and starts the client side's workers, each with its share of the
connection rate; the run ends (Cleanup, Loaded) when every client side
reported ``done``, or, on a server side alone, when the duration is over.
"""
import json
import threading

from softgen.astf_flows import COUNTERS
from softgen.astf_program import ProfileError, compile_profile
from softgen.protocol import _param, exec_err
from softgen.rpc_astf import BUILD, CLEANUP, LOADED, PARSE, TX, counter_desc


class AstfTrafficMixin:
    """The ASTF traffic and counter methods of :class:`softgen.server.SoftGenServer`."""

    def astf_rpc_start(self, params):
        self.astf_verify(params)
        pid, profile = self.astf_profile(params)
        mult = float(_param(params, "mult", "double"))
        duration = float(_param(params, "duration", "double", -1.0))
        nc = _param(params, "nc", "bool", False)
        if _param(params, "latency_pps", "uint", 0):
            raise exec_err("softgen does not send ASTF latency streams (latency_pps); each connection's first-byte latency "
                           "is in the counters sg_first_byte_usec_sum / sg_first_byte_count")
        self.astf_expect(profile, LOADED)
        if profile["parsed"] is None and not self.astf_parse(pid, profile):
            return {}
        self.astf_set_state(pid, BUILD)
        for side in self.astf_sides:
            side.call(cmd="clear")
        self.astf["epoch"] += 1
        self.astf["run"] += 1
        clients = [side for side in self.astf_sides if side.side == "client"]
        profile["running"] = set(clients)
        for side in clients:
            side.send(cmd="start", mult=mult, duration=duration, nc=nc, share=1.0 / len(clients), run=self.astf["run"])
        self.astf_set_state(pid, TX)
        if not clients and duration >= 0:
            timer = threading.Timer(duration, self.state_events.put, args=(("timer", {"ev": "astf_timer", "run": self.astf["run"]}),))
            timer.daemon = True
            timer.start()
        return {}

    def astf_parse(self, pid, profile):
        """Parse (TRex's state Parse): the workers load the profile; False, with the error in event 60, when it cannot run."""
        self.astf_set_state(pid, PARSE)
        try:
            raw = json.loads(profile["text"])
            compile_profile(raw)
        except (ValueError, ProfileError) as error:
            self.astf_set_state(pid, LOADED, error="softgen cannot run this profile: {0}".format(error))
            return False
        for side in self.astf_sides:
            side.call(cmd="load", profile=raw)
        # the profile as checked and handed to the workers (each compiles its own copy: the bytes do not cross JSON)
        profile["parsed"] = raw
        return True

    def astf_rpc_stop(self, params):
        self.astf_verify(params)
        pid, profile = self.astf_profile(params)
        if profile["state"] == TX:
            self.astf_end_run(pid, profile)
        return {}

    def astf_end_run(self, pid, profile):
        self.astf_set_state(pid, CLEANUP)
        self.astf["run"] += 1
        for side in profile["running"]:
            side.call(cmd="stop")
        profile["running"] = set()
        self.astf_set_state(pid, LOADED)

    def astf_rpc_update(self, params):
        self.astf_verify(params)
        _pid, profile = self.astf_profile(params)
        mult = float(_param(params, "mult", "double"))
        if mult <= 0:
            raise exec_err("Ratio between current rate and new one is invalid.")
        self.astf_expect(profile, TX)
        for side in profile["running"]:
            side.send(cmd="update", mult=mult)
        return {}

    def astf_worker_done(self, side, event):
        """A worker's ``done`` (its reader thread): handled on the events thread, in order."""
        self.state_events.put((side, dict(event, ev="astf_done")))

    def astf_on_done(self, side, event):
        """A client side's run ended (or a server side's timer did, or a worker exited under it): the run is over once
        every client side is."""
        for pid, profile in self.astf["profiles"].items():
            if profile["state"] != TX or (event.get("run") != self.astf["run"] and not event.get("exit")):
                continue
            profile["running"].discard(side)
            if not profile["running"]:
                self.astf_end_run(pid, profile)

    # ---------------------------------------------------------------- latency: not sent (see the module's docs)
    def astf_rpc_start_latency(self, params):
        self.astf_verify(params)
        raise exec_err("softgen does not send ASTF latency streams")

    def astf_rpc_stop_latency(self, params):
        self.astf_verify(params)
        return {"stopped": True}

    def astf_rpc_update_latency(self, params):
        self.astf_verify(params)
        raise exec_err("Latency is not active, can't update rate")

    def astf_rpc_get_latency_stats(self, _params):
        return {"data": {"epoch": self.astf["epoch"], "cpu_util": 0.0}}

    # ---------------------------------------------------------------- counters
    def astf_values(self, tg_id=None):
        """Both sides' counters summed over their ports, fresh from the workers once per request:
        ``{"client": {id: value}, "server": {...}}``."""
        if self.astf["refreshed"] != self.request_serial:
            for side in self.astf_sides:
                side.call(timeout=1.0, cmd="sync")
            self.astf["refreshed"] = self.request_serial
        sections = {"client": dict.fromkeys(COUNTERS, 0), "server": dict.fromkeys(COUNTERS, 0)}
        for side in self.astf_sides:
            values = side.total(tg_id)
            section = sections[side.side]
            for name in COUNTERS:
                value = values.get(name, 0)
                section[name] = max(section[name], value) if name.endswith("_max") else section[name] + value
        return {key: {str(index): section[name] for index, name in enumerate(COUNTERS) if section[name] or name.startswith("m_")}
                for key, section in sections.items()}

    def astf_rpc_get_counter_desc(self, params):
        self.astf_profile(params)
        return {"name": "counter desc", "data": counter_desc()}

    def astf_rpc_get_counter_values(self, params):
        self.astf_profile(params)
        return dict(self.astf_values(), name="counter vals", epoch=self.astf["epoch"])

    def astf_rpc_get_total_counter_values(self, _params):
        return dict(self.astf_values(), name="counter vals", epoch=self.astf["epoch"])

    def astf_rpc_get_dynamic_counter_desc(self, _params):
        return {"name": "counter desc", "data": [], "epoch": self.astf["epoch"]}

    def astf_rpc_get_dynamic_counter_values(self, _params):
        return {"name": "counter vals", "epoch": self.astf["epoch"], "client": {}, "server": {}}

    def astf_rpc_get_total_dynamic_counter_values(self, params):
        return self.astf_rpc_get_dynamic_counter_values(params)

    def astf_tg_names(self, params):
        """The template groups' names of the profile ``params`` names (none before it was parsed)."""
        _pid, profile = self.astf_profile(params)
        return (profile["parsed"] or {}).get("tg_names", [])

    def astf_rpc_get_tg_names(self, params):
        names = self.astf_tg_names(params)
        return {"epoch": self.astf["epoch"], "tg_names": names, "tg_addon_desc": {str(n): [] for n in range(len(names) + 1)}}

    def astf_rpc_get_tg_id_stats(self, params):
        names = self.astf_tg_names(params)
        reply = {"epoch": self.astf["epoch"]}
        for tg_id in _param(params, "tg_ids", "array"):
            if not isinstance(tg_id, int) or not 1 <= tg_id <= len(names):
                raise exec_err("tg_id {0} is not a template group of the profile".format(tg_id))
            reply[str(tg_id)] = dict(self.astf_values(tg_id), epoch=self.astf["epoch"], name=names[tg_id - 1])
        return reply

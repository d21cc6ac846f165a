"""TRex's statistics methods: global, port, xstats, utilization and per pg_id (flow stats, latency) statistics.

``src/stx/common/trex_rpc_cmds_common.cpp``: get_global_stats, get_port_stats,
get_port_xstats_names/values, get_utilization; ``src/stx/stl/trex_stl_rpc_cmds.cpp``:
get_active_pgids, get_pgid_stats; and clear_stats, and the ``trex-global``
data of the publisher.
"""
from softgen.latency import merge_latency
from softgen.port import COUNTERS
from softgen.protocol import _param, parse_err


class StatsMixin:
    """The statistics methods of :class:`softgen.server.SoftGenServer` (a mixin: ``self`` is the server)."""

    # ================================================================ stats methods
    def refresh(self, ports=None):
        """Fresh counters from the workers (what TRex reads from the NIC when asked), once per request: the current
        client asks for the global and each port's statistics in one batch."""
        for port in self.ports if ports is None else ports:
            if port.refreshed != self.request_serial and port.proc is not None and port.proc.poll() is None:
                port.call(timeout=1.0, cmd="sync")
                port.refreshed = self.request_serial

    def rpc_get_global_stats(self, _params):
        self.refresh()
        return self.global_stats()

    def rpc_get_port_stats(self, params):
        port = self.port_of(params)
        self.refresh([port])
        stats = port.stats()
        out = dict(stats)
        out.update({"m_total_tx_bps": stats["tx_bps"], "m_total_tx_pps": stats["tx_pps"], "m_total_rx_bps": stats["rx_bps"],
                    "m_total_rx_pps": stats["rx_pps"], "m_cpu_util": stats["cpu_util"]})
        return out

    def rpc_get_port_xstats_names(self, params):
        self.port_of(params)
        return {"xstats_names": ["rx_good_packets", "tx_good_packets", "rx_good_bytes", "tx_good_bytes", "rx_errors", "tx_errors"]}

    def rpc_get_port_xstats_values(self, params):
        stats = self.port_of(params).stats()
        return {"xstats_values": [stats["ipackets"], stats["opackets"], stats["ibytes"], stats["obytes"],
                                  stats["ierrors"], stats["oerrors"]]}

    def rpc_get_utilization(self, _params):
        cpu = []
        for port in self.ports:
            util = port.stats()["cpu_util"]
            cpu.append({"history": [round(util, 1)] * 20, "ports": [port.index, -1]})
        return {"cpu": cpu, "mbuf_stats": {}}

    def rpc_clear_stats(self, params):
        targets = [self.port_of(params)] if "port_id" in params else self.ports
        for port in targets:
            port.clear()
            port.pg_clear()
        return {}

    def global_snapshot(self):
        """``trex-global`` data: global keys plus per-port keys with a ``-<port>`` suffix."""
        data = self.global_stats()
        for port in self.ports:
            stats = port.stats()
            for key in COUNTERS:
                data["{0}-{1}".format(key, port.index)] = stats[key]
            data["m_total_tx_bps-%d" % port.index] = stats["tx_bps"]
            data["m_total_tx_pps-%d" % port.index] = stats["tx_pps"]
            data["m_total_rx_bps-%d" % port.index] = stats["rx_bps"]
            data["m_total_rx_pps-%d" % port.index] = stats["rx_pps"]
            data["m_cpu_util-%d" % port.index] = stats["cpu_util"]
        return data

    def global_stats(self):
        per_port = [p.stats() for p in self.ports]
        tot = {k: sum(s[k] for s in per_port) for k in COUNTERS + ("tx_pps", "tx_bps", "rx_pps", "rx_bps")}
        cpu = max([s["cpu_util"] for s in per_port] or [0.0])
        tx_pps = tot["tx_pps"]
        return {
            "m_cpu_util": cpu, "m_cpu_util_raw": cpu, "m_bw_per_core": (tot["tx_bps"] / 1e9) / max(1, len(self.ports)),
            "m_rx_cpu_util": 0.0, "m_rx_core_pps": 0.0, "m_platform_factor": 1.0,
            "m_tx_bps": tot["tx_bps"], "m_rx_bps": tot["rx_bps"], "m_tx_pps": tx_pps, "m_rx_pps": tot["rx_pps"],
            "m_tx_cps": 0.0, "m_tx_expected_cps": 0.0, "m_tx_expected_pps": tx_pps, "m_tx_expected_bps": tot["tx_bps"],
            "m_rx_drop_bps": max(0.0, tot["tx_bps"] - tot["rx_bps"]) if tot["rx_bps"] else 0.0,
            "m_active_flows": 0, "m_open_flows": 0, "m_total_tx_pkts": tot["opackets"], "m_total_rx_pkts": tot["ipackets"],
            "m_total_tx_bytes": tot["obytes"], "m_total_rx_bytes": tot["ibytes"], "m_total_clients": 0, "m_total_servers": 0,
            "m_active_sockets": 0, "m_socket_util": 0.0, "m_total_nat_time_out": 0, "m_total_nat_no_fid": 0,
            "m_total_nat_active": 0, "m_total_nat_open": 0, "m_total_nat_learn_error": 0, "m_total_queue_full": 0,
            "m_total_queue_drop": 0, "m_rx_bw_per_core": 0.0,
            "opackets": tot["opackets"], "ipackets": tot["ipackets"], "obytes": tot["obytes"], "ibytes": tot["ibytes"],
            "tx_pps": tx_pps, "rx_pps": tot["rx_pps"], "tx_bps": tot["tx_bps"], "rx_bps": tot["rx_bps"],
        }

    # ================================================================ flow stats / latency (pg_ids: StreamsMixin)
    def rpc_get_active_pgids(self, _params):
        ids = {"latency": [], "flow_stats": []}
        for pg_id, entry in sorted(self.pgids.items()):
            ids["latency" if entry["latency"] else "flow_stats"].append(pg_id)
        return {"ids": ids}

    def rpc_get_pgid_stats(self, params):
        wanted = _param(params, "pgids", "array")
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in wanted):
            raise parse_err("'pgids' must be a list of integers")
        flow_stats, lat_stats, ver_id = {}, {}, {}
        known = {pg_id & 0xFFFF for pg_id in self.pgids}
        rx_err = {}
        received = set()
        old_flow = bad_hdr = 0
        for port in self.ports:
            with port.lock:
                snaps = dict(port.pg_rx)
            received |= set(snaps)
            rx_err[str(port.index)] = sum(s["rp"] for hw, s in snaps.items() if hw not in known)
            old_flow += sum(s["old_flow"] for s in snaps.values())
            bad_hdr += sum(s["bad_hdr"] for s in snaps.values())
        # A pg_id asked for by id that this server does not send but its ports
        # received is reported as a latency pg_id: the virtual lab sends from
        # one softgen instance and receives on another, on one host and clock.
        pg_ids = [p for p in wanted if p in self.pgids or (p & 0xFFFF) in received] if wanted else sorted(self.pgids)
        for pg_id in pg_ids:
            entry = self.pgids.get(pg_id, {"latency": True, "ver": 0})
            per_port = {key: {} for key in ("tp", "tb", "rp", "rb", "tps", "tbs", "rps", "rbs")}
            snaps = []
            last_max = 0.0
            for port in self.ports:
                counts, rates, snap, port_max = port.pg_stats(pg_id & 0xFFFF, entry["latency"])
                key = str(port.index)
                for name, value in zip(("tp", "tb", "rp", "rb"), counts):
                    per_port[name][key] = value
                for name, value, scale in zip(("tps", "tbs", "rps", "rbs"), rates, (1, 8, 1, 8)):
                    per_port[name][key] = round(value * scale, 2)  # packets/s, bits/s
                if snap is not None:
                    snaps.append(snap)
                last_max = max(last_max, port_max)
            flow_stats[str(pg_id)] = per_port
            ver_id[str(pg_id)] = entry["ver"]
            if entry["latency"]:
                lat_stats[str(pg_id)] = merge_latency(snaps, last_max)
        flow_stats["g"] = {"rx_err": rx_err, "tx_err": {str(port.index): 0 for port in self.ports}}
        lat_stats["g"] = {"old_flow": old_flow, "bad_hdr": bad_hdr}
        return {"flow_stats": flow_stats, "latency": lat_stats, "ver_id": ver_id}

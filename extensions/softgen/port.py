"""One TRex port on the server side: ownership, configuration and counters, and the worker process that sends.

The state behind the port methods of TRex's RPC server (``get_port_status``,
``get_port_stats``, flow stats per pg_id); frames are produced by one
:mod:`softgen.portworker` process per port, driven over its stdin/stdout.
"""
import threading
import time

from softgen.latency import RateMeter
from softgen.protocol import RpcError
from softgen.workerproc import WorkerProcess

COUNTERS = ("opackets", "obytes", "oerrors", "ipackets", "ibytes", "ierrors")
RATE_WINDOW = 1.0
# What a port counts on RX, in the words of TRex's get_system_info: per pg_id packets and bytes
# ("flow_stats") and latency ("latency") from the trailer of softgen.latency, and the interface's
# bytes ("rx_bytes"); "counters", how many pg_ids it tells apart: a hw_id is the pg_id's low 16 bits.
RX_CAPS = ("flow_stats", "latency", "rx_bytes")
RX_COUNTERS = 0x10000


class Port(WorkerProcess):
    """Server-side state of one TRex port and the handle of its worker process."""

    def __init__(self, index, name, netns, iface):
        super().__init__()
        self.index = index
        self.name = name
        self.netns = netns
        self.iface = iface
        self.lock = threading.RLock()
        self.owner = ""
        self.handler = None
        self.session_id = None
        self.generation = None
        self.streams = {}
        self.state = "IDLE"
        self.service = False
        self.service_filtered = False
        self.mac = "00:00:00:00:00:00"
        self.speed_gbps = 10
        self.dst_mac = "ff:ff:ff:ff:ff:ff"
        self.dst_configured = False
        self.ipv4 = {"state": "none"}
        self.ipv6 = {"enabled": False}
        self.vlan = []
        self.promiscuous = False
        self.multicast = False
        self.link_up = True
        self.rx_queue = {"is_active": False, "count": 0, "size": 0}
        self.mult = 1.0
        self.duration = -1.0
        self.run_id = 0
        self.refreshed = None
        self.base_pps = 0.0
        self.counters = dict.fromkeys(COUNTERS, 0)
        self.offsets = dict.fromkeys(COUNTERS, 0)
        self.cpu = 0.0
        self.history = []
        self.rates = {"tx_pps": 0.0, "rx_pps": 0.0, "tx_bps": 0.0, "rx_bps": 0.0, "cpu_util": 0.0}
        # flow stats reported by the worker (per hw_id): TX [packets, bytes], RX snapshots, rates, max since last read
        self.pg_gen = 0
        self.pg_tx = {}
        self.pg_rx = {}
        self.pg_rates = {}
        self.pg_last_max = {}
        self.hello = threading.Event()
        self.last_error = None

    # -------------------------------------------------------------- worker
    def spawn(self, ring_cap, on_event, tx_mode="ring"):
        self.start_process("softgen.portworker", ["--netns", self.netns or "-", "--iface", self.iface, "--ring-cap", str(ring_cap),
                                                  "--tx-mode", tx_mode], lambda event: on_event(self, event), "port%d-reader" % self.index)

    # -------------------------------------------------------------- stats
    def update_counters(self, event):
        with self.lock:
            for key in COUNTERS:
                self.counters[key] = event.get(key, 0)
            now = event.get("ts", time.monotonic())
            self.history.append((now, self.counters["opackets"], self.counters["obytes"], self.counters["ipackets"],
                                 self.counters["ibytes"], event.get("cpu", 0.0)))
            while len(self.history) > 2 and now - self.history[1][0] >= RATE_WINDOW:
                self.history.pop(0)
            first = self.history[0]
            span = now - first[0]
            if span > 0:
                self.rates = {"tx_pps": (self.counters["opackets"] - first[1]) / span,
                              "tx_bps": 8.0 * (self.counters["obytes"] - first[2]) / span,
                              "rx_pps": (self.counters["ipackets"] - first[3]) / span,
                              "rx_bps": 8.0 * (self.counters["ibytes"] - first[4]) / span,
                              "cpu_util": min(100.0, 100.0 * (event.get("cpu", 0.0) - first[5]) / span)}

    def update_pg(self, report, now):
        """Take the worker's flow stats (``pg`` of its stats event) unless they predate the last clear."""
        with self.lock:
            if report.get("gen") != self.pg_gen:
                return
            self.pg_tx = {int(hw): counts for hw, counts in report.get("tx", {}).items()}
            self.pg_rx = {int(hw): snap for hw, snap in report.get("rx", {}).items()}
            for hw_id in set(self.pg_tx) | set(self.pg_rx):
                tx = self.pg_tx.get(hw_id, (0, 0))
                rx = self.pg_rx.get(hw_id, {"rp": 0, "rb": 0})
                self.pg_rates.setdefault(hw_id, RateMeter(RATE_WINDOW)).add(now, (tx[0], tx[1], rx["rp"], rx["rb"]))
            for hw_id, snap in self.pg_rx.items():
                self.pg_last_max[hw_id] = max(self.pg_last_max.get(hw_id, 0.0), snap["wmax"])

    def pg_stats(self, hw_id, reset_last_max):
        """(tx packets, tx bytes, rx packets, rx bytes), their rates, the RX snapshot or None, and the max latency
        since the previous read of ``hw_id`` on this port."""
        with self.lock:
            tx = self.pg_tx.get(hw_id, (0, 0))
            snap = self.pg_rx.get(hw_id)
            counts = (tx[0], tx[1], snap["rp"] if snap else 0, snap["rb"] if snap else 0)
            meter = self.pg_rates.get(hw_id)
            rates = meter.rates() if meter else (0.0,) * 4
            last_max = self.pg_last_max.pop(hw_id, 0.0) if reset_last_max else self.pg_last_max.get(hw_id, 0.0)
        return counts, rates, snap, last_max

    def pg_clear(self, hw_ids=None):
        """Forget the flow stats of ``hw_ids`` (all when None) here and in the worker."""
        with self.lock:
            self.pg_gen += 1
            for table in (self.pg_tx, self.pg_rx, self.pg_rates, self.pg_last_max):
                for hw_id in list(table) if hw_ids is None else hw_ids:
                    table.pop(hw_id, None)
            gen = self.pg_gen
        try:
            self.send(cmd="pg_clear", gen=gen, hw_ids=hw_ids)
        except RpcError:
            pass  # a worker that is gone reports nothing more

    def stats(self):
        with self.lock:
            values = {key: self.counters[key] - self.offsets[key] for key in COUNTERS}
            rates = dict(self.rates)
        if self.state not in ("TX", "PAUSE") and rates["tx_pps"] < 0.5:
            rates["tx_pps"] = rates["tx_bps"] = 0.0
        values.update(rates)
        return values

    def clear(self):
        with self.lock:
            self.offsets = dict(self.counters)

    # -------------------------------------------------------------- JSON views
    def layer_cfg(self):
        ether = {"src": self.mac, "dst": self.dst_mac,
                 "state": "configured" if self.dst_configured or self.ipv4["state"] == "resolved" else "unconfigured"}
        if self.ipv4["state"] == "none":
            ether["state"] = "configured"
        return {"ether": ether, "ipv4": dict(self.ipv4), "ipv6": dict(self.ipv6)}

    def attr(self):
        return {"speed": self.speed_gbps, "link": {"up": self.link_up}, "promiscuous": {"enabled": self.promiscuous},
                "multicast": {"enabled": self.multicast}, "fc": {"mode": 0}, "vlan": {"tags": list(self.vlan)},
                "rx_filter_mode": "hw", "layer_cfg": self.layer_cfg(), "src_mac": self.mac, "src_ipv4": self.ipv4.get("src"),
                "dest": self.dst_mac}

    def info(self):
        return {"index": self.index, "driver": "net_softgen", "pci_addr": "{0}/{1}".format(self.netns or "-", self.iface),
                "numa": 0, "hw_mac": self.mac, "description": "softgen {0} ({1})".format(self.name, self.iface)[:40],
                "rx": {"caps": list(RX_CAPS), "counters": RX_COUNTERS}, "is_fc_supported": False, "is_led_supported": False,
                "is_link_supported": False, "is_prom_supported": True, "is_vxlan_supported": False, "is_virtual": True,
                "supp_speeds": [self.speed_gbps * 1000], "cores": [self.index], "speed": self.speed_gbps}

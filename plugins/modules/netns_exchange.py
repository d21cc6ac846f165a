#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: netns_exchange
short_description: Exchange real TCP or UDP traffic between two network namespaces
version_added: 0.1.0
description:
  - Starts an echo server in one network namespace and a client in another, sends O(count) messages
    of O(size) bytes over TCP or UDP and checks that every one comes back intact.
  - With O(ovs_interfaces), reads those Open vSwitch interfaces' packet counters before and after,
    which shows the traffic really crossed the switch.
  - Changes nothing on the host; it always reports C(changed=false) and runs in check mode too.
  - Fails when fewer than O(min_ratio) of the messages come back.
  - Over UDP the client first sends small warm-up datagrams until one comes back (for at most O(timeout)
    seconds), because the first datagram through a router may wait for address resolution; they are not
    counted. Every message carries a sequence number, so a late answer to an earlier message never counts
    for a later one. A message whose answer is late is sent again (O(retries)).
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Reads only; the exchange runs in check mode as well.
  diff_mode:
    support: none
    description: Nothing changes, so there is nothing to show.
options:
  server_namespace:
    description: Namespace of the echo server; an empty string means the host's own namespace.
    type: str
    required: true
  server_address:
    description: Address the server listens on and the client connects to.
    type: str
    required: true
  connect_address:
    description:
      - Address the client sends to, when it is not O(server_address); a NAT or load-balancer address in
        front of the server (seed 000's C(dnat_and_snat 18.0.0.188 16.0.0.188)).
    type: str
  client_namespace:
    description: Namespace of the client; an empty string means the host's own namespace.
    type: str
    required: true
  protocol:
    description: Transport.
    type: str
    choices: [tcp, udp]
    default: tcp
  port:
    description: Server port.
    type: int
    default: 5201
  count:
    description: Number of messages.
    type: int
    default: 100
  size:
    description: Bytes per message (UDP payload or TCP write).
    type: int
    default: 1000
  timeout:
    description: Seconds to wait for an answer before a message counts as lost.
    type: float
    default: 5.0
  retries:
    description:
      - Over UDP, how many times a message whose answer has not come back is sent again, spread evenly over
        O(timeout) (with the defaults, once a second). Identical copies are echoed, counted once and reported
        in RV(resent). C(0) sends every message once. TCP retransmits by itself and ignores this.
    type: int
    default: 4
  min_ratio:
    description: Share of the messages that must come back for the module to succeed.
    type: float
    default: 1.0
  ovs_interfaces:
    description: OVS ports whose live counters (C(ovs-ofctl dump-ports)) are read before and after.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: TCP through the lab's switch, from ltb-srv2 to ltb-srv1
  offload.testbed.netns_exchange:
    server_namespace: ltb-srv1
    server_address: 192.168.0.3
    client_namespace: ltb-srv2
    protocol: tcp
    ovs_interfaces: [ltb-srv1, ltb-srv2]
  register: tcp_result
"""

RETURN = r"""
sent:
  description: Messages the client sent.
  returned: always
  type: int
  sample: 100
received:
  description: Messages that came back intact.
  returned: always
  type: int
  sample: 100
bytes:
  description: Payload bytes echoed back.
  returned: always
  type: int
  sample: 100000
kernel_errors:
  description:
    - Error and discard counters of C(/proc/net/snmp) (Ip, Udp, Tcp) that moved during the exchange, per side, for
      example C(client UdpInCsumErrors). Empty when none moved. A failure message names them.
  returned: always
  type: dict
  sample: {"client UdpInCsumErrors": 50}
resent:
  description: UDP messages sent again because their answer was late (0 over TCP); each is counted once in RV(sent).
  returned: always
  type: int
  sample: 1
warmup:
  description: UDP warm-up datagrams sent before the counted messages (0 over TCP).
  returned: always
  type: int
  sample: 1
server_peer:
  description: Source address the server saw.
  returned: always
  type: str
  sample: 192.168.0.4
ovs_packets:
  description: Per OVS port, the packets it received from its interface (rx) and sent to it (tx) during the exchange.
  returned: always
  type: dict
  sample: {"ltb-srv1": {"rx_packets": 102, "tx_packets": 102}}
"""

import json
import sys

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.virtual_lab import parse_ofctl_port_stats

SERVER = r"""
import json, socket, sys
proto, addr, port, count, size, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
if proto == "tcp":
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port)); s.listen(1); s.settimeout(timeout * 2)
    print("READY", flush=True)
    c, peer = s.accept(); c.settimeout(timeout)
    total = n = 0
    while True:
        data = c.recv(65536)
        if not data:
            break
        c.sendall(data); total += len(data)
    c.close()
else:
    # Until STOP, or until nothing arrives for twice the client's wait: a
    # message the client sends again is echoed again but counted once.
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((addr, port)); s.settimeout(timeout * 2)
    print("READY", flush=True)
    total, seen, peer = 0, set(), ("", 0)
    try:
        while True:
            data, peer = s.recvfrom(65536)
            if data == b"STOP":
                break
            s.sendto(data, peer)
            if data != b"WARM" and data[:8] not in seen:
                seen.add(data[:8]); total += len(data)
    except socket.timeout:
        pass
    n = len(seen)
print(json.dumps({"peer": peer[0], "bytes": total, "messages": n if proto == "udp" else None}), flush=True)
"""

CLIENT = r"""
import json, os, socket, struct, sys, time
proto, addr, port, count, size, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
retries = int(sys.argv[7])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
sent = received = nbytes = warmup = resent = 0
if proto == "tcp":
    s = socket.create_connection((addr, port), timeout=timeout)
    for i in range(count):
        msg = os.urandom(size)
        s.sendall(msg); sent += 1
        got = b""
        while len(got) < size:
            chunk = s.recv(size - len(got))
            if not chunk:
                break
            got += chunk
        if got == msg:
            received += 1; nbytes += len(got)
    s.close()
else:
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # Warm-up: the first datagram through a router may wait for address
    # resolution; send WARM until one comes back (at most `timeout` seconds).
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s.sendto(b"WARM", (addr, port)); warmup += 1
        s.settimeout(0.25)
        try:
            if s.recvfrom(65536)[0] == b"WARM":
                break
        except socket.timeout:
            pass
    # Each message starts with its sequence number: a late answer to an earlier
    # message is recognised and skipped, it never counts for the current one.
    # A message whose answer is late is sent again, `retries` times, spread
    # over the same `timeout`: a reply dropped while a freshly built router
    # still settles costs a second, not the message.
    step = timeout / (retries + 1)
    for i in range(count):
        msg = struct.pack("!Q", i) + os.urandom(max(size - 8, 0))
        s.sendto(msg, (addr, port)); sent += 1
        end = time.monotonic() + timeout
        again = time.monotonic() + step
        while True:
            now = time.monotonic()
            if now >= end:
                break
            if now >= again:
                s.sendto(msg, (addr, port)); resent += 1
                again = now + step
            s.settimeout(max(min(end, again) - now, 0.001))
            try:
                got, _peer = s.recvfrom(65536)
            except socket.timeout:
                continue
            if got == msg:
                received += 1; nbytes += len(got)
                break
    s.sendto(b"STOP", (addr, port))
print(json.dumps({"sent": sent, "received": received, "bytes": nbytes, "warmup": warmup, "resent": resent}))
"""


DRIVER = r"""
import json, subprocess, sys
job = json.loads(sys.argv[1])
def in_netns(ns, argv):
    return (["ip", "netns", "exec", ns] + argv) if ns else argv
def snmp(ns):
    # /proc/net/snmp of a namespace: {"Ip": {...}, "Udp": {...}, ...}
    try:
        text = subprocess.run(in_netns(ns, ["cat", "/proc/net/snmp"]), capture_output=True, universal_newlines=True).stdout
    except OSError:
        return {}
    lines, out = text.splitlines(), {}
    for head, values in zip(lines[0::2], lines[1::2]):
        names, nums = head.split()[1:], values.split()[1:]
        out[head.split(":")[0]] = dict(zip(names, (int(v) for v in nums)))
    return out
snmp_before = {"client": snmp(job["client_namespace"]), "server": snmp(job["server_namespace"])}
server = subprocess.Popen(in_netns(job["server_namespace"], [sys.executable, "-c", job["server"]] + job["args"]),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
out = {"client": None, "server": None, "error": None}
try:
    if server.stdout.readline().strip() != "READY":
        out["error"] = "echo server in namespace %s did not start: %s" % (job["server_namespace"], server.stderr.read().strip())
    else:
        client = subprocess.run(in_netns(job["client_namespace"], [sys.executable, "-c", job["client"]] + job["client_args"]),
                                capture_output=True, universal_newlines=True, timeout=job["deadline"])
        if client.returncode != 0:
            out["error"] = "client in namespace %s failed: %s" % (job["client_namespace"], client.stderr.strip())
        else:
            out["client"] = json.loads(client.stdout)
        srv_out, srv_err = server.communicate(timeout=job["deadline"])
        lines = [l for l in srv_out.splitlines() if l.strip()]
        if server.returncode != 0 or not lines:
            out["error"] = out["error"] or "echo server in namespace %s failed: %s" % (job["server_namespace"], srv_err.strip())
        else:
            out["server"] = json.loads(lines[-1])
finally:
    if server.poll() is None:
        server.kill()
        server.wait()
out["snmp"] = {}
for side, ns in (("client", job["client_namespace"]), ("server", job["server_namespace"])):
    after = snmp(ns)
    for table in ("Ip", "Udp", "Tcp"):
        for key, value in after.get(table, {}).items():
            delta = value - snmp_before[side].get(table, {}).get(key, value)
            if delta and (key.endswith("Errors") or key.endswith("Errs") or key in ("InDiscards", "NoPorts")):
                out["snmp"]["%s %s%s" % (side, table, key)] = delta
print(json.dumps(out))
"""


def _ovs_stats(module, names):
    """Live packet counters of OVS ports (``ovs-ofctl dump-ports``)."""
    stats = {}
    for name in names:
        rc, bridge, err = module.run_command(["ovs-vsctl", "--timeout=10", "port-to-br", name])
        if rc == 0:
            rc, out, err = module.run_command(["ovs-ofctl", "dump-ports", bridge.strip(), name])
        if rc != 0:
            module.fail_json(msg="cannot read the counters of OVS port %s: %s" % (name, err.strip()))
        stats[name] = parse_ofctl_port_stats(out)
    return stats


def main():
    module = AnsibleModule(
        argument_spec=dict(
            server_namespace=dict(type="str", required=True),
            server_address=dict(type="str", required=True),
            client_namespace=dict(type="str", required=True),
            connect_address=dict(type="str"),
            protocol=dict(type="str", choices=["tcp", "udp"], default="tcp"),
            port=dict(type="int", default=5201),
            count=dict(type="int", default=100),
            size=dict(type="int", default=1000),
            timeout=dict(type="float", default=5.0),
            retries=dict(type="int", default=4),
            min_ratio=dict(type="float", default=1.0),
            ovs_interfaces=dict(type="list", elements="str", default=[]),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if p["count"] < 1 or not 1 <= p["size"] <= 65000 or (p["protocol"] == "udp" and p["size"] < 8):
        module.fail_json(msg="count must be at least 1 and size within 1..65000 (8..65000 over UDP: each message carries its sequence number)")
    if p["retries"] < 0 or p["timeout"] <= 0:
        module.fail_json(msg="retries must be 0 or more and timeout above 0 (got retries=%s, timeout=%s)" % (p["retries"], p["timeout"]))
    args = [p["protocol"], p["server_address"], str(p["port"]), str(p["count"]), str(p["size"]), str(p["timeout"])]
    before = _ovs_stats(module, p["ovs_interfaces"])
    client_args = list(args)
    client_args[1] = p["connect_address"] or p["server_address"]
    client_args.append(str(p["retries"]))
    job = dict(server_namespace=p["server_namespace"], client_namespace=p["client_namespace"], server=SERVER, client=CLIENT,
               args=args, client_args=client_args, deadline=p["timeout"] * (p["count"] + 3))
    rc, out, err = module.run_command([sys.executable, "-c", DRIVER, json.dumps(job)])
    if rc != 0:
        module.fail_json(msg="traffic driver failed: %s" % (err.strip() or out.strip()))
    outcome = json.loads(out)
    if outcome["error"]:
        module.fail_json(msg=outcome["error"])
    client, srv = outcome["client"], outcome["server"]
    after = _ovs_stats(module, p["ovs_interfaces"])
    ovs_packets = {}
    for name in p["ovs_interfaces"]:
        ovs_packets[name] = dict((k, after[name].get(k, 0) - before[name].get(k, 0)) for k in ("rx_packets", "tx_packets"))
    result = dict(changed=False, sent=client["sent"], received=client["received"], bytes=client["bytes"],
                  warmup=client.get("warmup", 0), resent=client.get("resent", 0), server_peer=srv["peer"], ovs_packets=ovs_packets)
    result["kernel_errors"] = outcome.get("snmp", {})
    if client["received"] < p["min_ratio"] * client["sent"]:
        clues = []
        if srv.get("messages") is not None:
            clues.append("the server got %d" % srv["messages"])
        clues.append("OVS ports counted %s" % ", ".join("%s rx %d tx %d" % (n, c["rx_packets"], c["tx_packets"]) for n, c in ovs_packets.items())
                     if ovs_packets else "no OVS ports given")
        clues.append("kernel error counters that moved: %s" % (", ".join("%s +%d" % kv for kv in sorted(result["kernel_errors"].items())) or "none"))
        module.fail_json(msg="%s exchange %s -> %s: %d of %d messages came back (%s)" % (
            p["protocol"].upper(), p["client_namespace"], p["server_namespace"], client["received"], client["sent"], "; ".join(clues)), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()

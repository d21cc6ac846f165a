#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: netns_lb_probe
short_description: Show which backends behind a load-balancer VIP answer, with real TCP or UDP
version_added: 0.1.0
description:
  - Starts, in each backend's network namespace, a server that answers every TCP connection or UDP
    datagram on O(port) with the backend's name.
  - From the client namespace, opens O(count) new TCP connections (or sends O(count) datagrams, each from
    a new socket, so from a new source port) to O(vip) and counts which backend answered each.
  - Fails when a backend in O(backends) got fewer than O(min_per_backend) answers, or when fewer than
    O(min_ratio) of the attempts got one; a load balancer that reaches all of them passes.
  - Changes nothing on the host; it always reports C(changed=false) and runs in check mode too.
author:
  - offload.testbed developers (@offload-testbed)
attributes:
  check_mode:
    support: full
    description: Reads only; the probe runs in check mode as well.
  diff_mode:
    support: none
    description: Nothing changes, so there is nothing to show.
options:
  client_namespace:
    description: Namespace the connections come from; an empty string means the host's own.
    type: str
    required: true
  vip:
    description: Virtual IP the client connects to.
    type: str
    required: true
  port:
    description: Port of the VIP and of the backends.
    type: int
    required: true
  protocol:
    description: Transport.
    type: str
    choices: [tcp, udp]
    default: tcp
  backends:
    description: The backends, each with the namespace it lives in and the address its server listens on.
    type: list
    elements: dict
    required: true
    suboptions:
      namespace:
        description: Namespace of the backend.
        type: str
        required: true
      address:
        description: Address the backend's server listens on.
        type: str
        required: true
  count:
    description: Connections (TCP) or datagrams (UDP) to send.
    type: int
    default: 30
  timeout:
    description: Seconds to wait for each answer.
    type: float
    default: 5.0
  retries:
    description:
      - Over UDP, how many times a datagram whose answer has not come back is sent again from the same socket (the same
        flow through the load balancer), spread evenly over O(timeout). TCP retransmits by itself and ignores this.
    type: int
    default: 4
  min_per_backend:
    description: Answers every backend must give.
    type: int
    default: 1
  min_ratio:
    description: Share of the attempts that must get an answer.
    type: float
    default: 1.0
"""

EXAMPLES = r"""
- name: TCP load balancing of 18.0.0.172:80 reaches the three backends
  offload.testbed.netns_lb_probe:
    client_namespace: ltb-gen
    vip: 18.0.0.172
    port: 80
    protocol: tcp
    backends:
      - {namespace: ltb-srv1, address: 192.168.0.3}
      - {namespace: ltb-srv2, address: 192.168.0.4}
      - {namespace: ltb-srv3, address: 192.168.0.5}
"""

RETURN = r"""
hits:
  description: Answers per backend namespace.
  returned: always
  type: dict
  sample: {"ltb-srv1": 11, "ltb-srv2": 9, "ltb-srv3": 10}
answered:
  description: Attempts that got an answer.
  returned: always
  type: int
  sample: 30
resent:
  description: UDP datagrams sent again because their answer was late (0 over TCP).
  returned: always
  type: int
  sample: 0
attempts:
  description: Attempts made.
  returned: always
  type: int
  sample: 30
"""

import json
import sys

from ansible.module_utils.basic import AnsibleModule

SERVER = r"""
import socket, sys, threading
proto, addr, port, name, lifetime = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode(), float(sys.argv[5])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
if proto == "tcp":
    s = socket.socket(fam, socket.SOCK_STREAM); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port)); s.listen(64); s.settimeout(lifetime)
else:
    s = socket.socket(fam, socket.SOCK_DGRAM); s.bind((addr, port)); s.settimeout(lifetime)
print("READY", flush=True)
try:
    while True:
        if proto == "tcp":
            c, _peer = s.accept()
            c.sendall(name); c.close()
        else:
            data, peer = s.recvfrom(2048)
            if data == b"STOP":
                break
            s.sendto(name, peer)
except (socket.timeout, OSError):
    pass
"""

CLIENT = r"""
import json, socket, sys, time
proto, vip, port, count, timeout, retries = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
fam = socket.AF_INET6 if ":" in vip else socket.AF_INET
hits, answered, resent = {}, 0, 0
for i in range(count):
    try:
        if proto == "tcp":
            s = socket.create_connection((vip, port), timeout=timeout)
            got = b""
            while True:
                chunk = s.recv(256)
                if not chunk:
                    break
                got += chunk
        else:
            # One socket per attempt (a new flow through the load balancer); a
            # datagram whose answer is late is sent again from the same socket,
            # `retries` times over `timeout`, so it stays the same flow.
            s = socket.socket(fam, socket.SOCK_DGRAM)
            end, got = time.monotonic() + timeout, b""
            for copy in range(retries + 1):
                left = end - time.monotonic()
                if left <= 0:
                    break
                s.sendto(b"hello %d" % i, (vip, port)); resent += copy > 0
                s.settimeout(min(left, timeout / (retries + 1)))
                try:
                    got, _peer = s.recvfrom(256)
                    break
                except socket.timeout:
                    pass
        s.close()
    except OSError:
        continue
    if got:
        answered += 1
        hits[got.decode()] = hits.get(got.decode(), 0) + 1
print(json.dumps({"hits": hits, "answered": answered, "attempts": count, "resent": resent}))
"""

DRIVER = r"""
import json, subprocess, sys
job = json.loads(sys.argv[1])
def in_netns(ns, argv):
    return (["ip", "netns", "exec", ns] + argv) if ns else argv
servers, out = [], {"error": None, "client": None}
try:
    for b in job["backends"]:
        p = subprocess.Popen(in_netns(b["namespace"], [sys.executable, "-c", job["server"], job["protocol"], b["address"], str(job["port"]),
                                                       b["namespace"], str(job["lifetime"])]),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        servers.append(p)
        if p.stdout.readline().strip() != "READY":
            out["error"] = "server in namespace %s did not start: %s" % (b["namespace"], p.stderr.read().strip())
            break
    if not out["error"]:
        c = subprocess.run(in_netns(job["client_namespace"], [sys.executable, "-c", job["client"], job["protocol"], job["vip"],
                                                              str(job["port"]), str(job["count"]), str(job["timeout"]),
                                                              str(job["retries"])]),
                           capture_output=True, universal_newlines=True, timeout=job["lifetime"])
        if c.returncode != 0:
            out["error"] = "client in namespace %s failed: %s" % (job["client_namespace"], c.stderr.strip())
        else:
            out["client"] = json.loads(c.stdout)
finally:
    for p in servers:
        p.kill()
        p.wait()
print(json.dumps(out))
"""


def main():
    module = AnsibleModule(
        argument_spec=dict(
            client_namespace=dict(type="str", required=True),
            vip=dict(type="str", required=True),
            port=dict(type="int", required=True),
            protocol=dict(type="str", choices=["tcp", "udp"], default="tcp"),
            backends=dict(type="list", elements="dict", required=True, options=dict(
                namespace=dict(type="str", required=True),
                address=dict(type="str", required=True),
            )),
            count=dict(type="int", default=30),
            timeout=dict(type="float", default=5.0),
            retries=dict(type="int", default=4),
            min_per_backend=dict(type="int", default=1),
            min_ratio=dict(type="float", default=1.0),
        ),
        supports_check_mode=True,
    )
    p = module.params
    if p["count"] < 1 or not 1 <= p["port"] <= 65535 or not p["backends"]:
        module.fail_json(msg="count must be at least 1, port within 1..65535, and backends not empty")
    if p["retries"] < 0 or p["timeout"] <= 0:
        module.fail_json(msg="retries must be 0 or more and timeout above 0 (got retries=%s, timeout=%s)" % (p["retries"], p["timeout"]))
    job = dict(p, server=SERVER, client=CLIENT, lifetime=p["timeout"] * (p["count"] + 5))
    rc, out, err = module.run_command([sys.executable, "-c", DRIVER, json.dumps(job)])
    if rc != 0:
        module.fail_json(msg="probe driver failed: %s" % (err.strip() or out.strip()))
    outcome = json.loads(out)
    if outcome["error"]:
        module.fail_json(msg=outcome["error"])
    client = outcome["client"]
    hits = dict((b["namespace"], client["hits"].get(b["namespace"], 0)) for b in p["backends"])
    result = dict(changed=False, hits=hits, answered=client["answered"], attempts=client["attempts"], resent=client["resent"])
    starved = sorted(ns for ns, n in hits.items() if n < p["min_per_backend"])
    if starved or client["answered"] < p["min_ratio"] * client["attempts"]:
        module.fail_json(msg="%s %s:%d: %d of %d attempts answered; backends below %d answers: %s" % (
            p["protocol"].upper(), p["vip"], p["port"], client["answered"], client["attempts"], p["min_per_backend"],
            ", ".join(starved) or "none"), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()

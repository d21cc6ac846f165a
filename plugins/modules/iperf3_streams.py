#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: iperf3_streams
short_description: One TCP measurement of parallel iperf3 streams, server and client on this host
version_added: 0.2.0
description:
  - Starts an iperf3 server for one client (C(iperf3 --server --one-off --bind BIND --port PORT --json)), in
    O(server_namespace) when given, waits until it listens (C(ss -Hltn) in the same namespace), runs the client
    (C(iperf3 --client SERVER --port PORT --parallel STREAMS --time DURATION --json)), in O(client_namespace) when
    given, and parses the client's JSON report. The server is then reaped, and killed if it is still running.
  - The measurement of the tunnel-offload bench; run it once with the offload on and once with it off.
  - The client runs under C(timeout) (coreutils) with O(timeout), so a stuck client cannot hang the task.
  - iperf3 3.12 exits 0 on errors it reports in JSON (connection refused, an MSS the kernel refuses); the module fails
    on the report's C(error) whatever the exit code, with the server's own error when it has one.
  - Range checks of the options are made before anything runs; all of their errors are reported at once, each naming
    its option.
  - Requires C(iperf3), C(ss) (iproute2), C(timeout) (coreutils) and, with a namespace, C(ip) on the host.
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Checks the options and returns the commands in RV(command) and RV(server_command) with
      RV(measured=false); nothing is started and no traffic is sent.
  diff_mode:
    description: The module writes nothing; it measures.
options:
  server:
    description: The address the client connects to (the server's address, as seen from O(client_namespace)).
    type: str
    required: true
  bind:
    description: The address the server binds to (C(--bind)); O(server) when not given.
    type: str
  port:
    description: The server's TCP port (1 to 65535).
    type: int
    default: 5201
  streams:
    description: The number of parallel TCP streams (C(--parallel)), 1 to 128.
    type: int
    default: 1
  duration:
    description: Seconds of measured traffic (C(--time)), 1 to 3600.
    type: int
    default: 10
  mss:
    description:
      - The TCP maximum segment size of the streams (C(--set-mss)), 88 (Linux's smallest) to 9216 (iperf3's largest).
      - The kernel's own (from the path MTU) when not given.
    type: int
  omit:
    description: Seconds of slow start sent before the measured O(duration) and left out of the sums (C(--omit)), 0 to 3600.
    type: int
    default: 0
  client_namespace:
    description: The network namespace the client runs in (C(ip netns exec)); this host's namespace when not given.
    type: str
  server_namespace:
    description: The network namespace the server runs in (C(ip netns exec)); this host's namespace when not given.
    type: str
  start_server:
    description:
      - Start the server here (in O(server_namespace)) for this one run and stop it after.
      - C(false) runs only the client, against a server that listens already (on another host of a two-host bench,
        started there with C(iperf3 --server --one-off --daemon)).
    type: bool
    default: true
  timeout:
    description:
      - Seconds the client may run before it is stopped and the module fails; at least O(duration) + O(omit) + 1.
      - O(duration) + O(omit) + 30 when not given.
    type: int
notes:
  - The module always returns C(changed=false).
  - O(bind) and O(server) differ when the server is reached through an address it does not own, or binds a wildcard
    address (C(0.0.0.0), C(::)).
"""

EXAMPLES = r"""
- name: Four TCP streams through the VXLAN tunnel, 10 s after 2 s of slow start
  offload.testbed.iperf3_streams:
    server: 10.10.0.2
    server_namespace: tenant-b
    client_namespace: tenant-a
    streams: 4
    duration: 10
    omit: 2
  register: offload_on

- name: The same with the offload off (the ethtool change made in between)
  offload.testbed.iperf3_streams:
    server: 10.10.0.2
    server_namespace: tenant-b
    client_namespace: tenant-a
    streams: 4
    duration: 10
    omit: 2
  register: offload_off

- name: Compare
  ansible.builtin.debug:
    msg: "on {{ offload_on.received_gbps | round(2) }} Gbit/s, off {{ offload_off.received_gbps | round(2) }} Gbit/s"
"""

RETURN = r"""
measured:
  description: Whether a measurement ran (false in check mode).
  returned: always
  type: bool
errors:
  description: The options out of their ranges, each message naming its option; the module fails with them, nothing runs.
  returned: on failure, when an option is out of its range
  type: list
  elements: str
  sample: ["streams: 200 is out of range (1 to 128)"]
command:
  description: The client's command (inside C(ip netns exec) with O(client_namespace)); it runs under C(timeout).
  returned: always
  type: list
  elements: str
  sample: ["iperf3", "--client", "127.0.0.1", "--port", "5201", "--parallel", "2", "--time", "1", "--json"]
server_command:
  description: The server's command (inside C(ip netns exec) with O(server_namespace)).
  returned: always
  type: list
  elements: str
  sample: ["iperf3", "--server", "--one-off", "--bind", "127.0.0.1", "--port", "5201", "--json"]
sent_gbps:
  description: What the client sent, Gbit/s (C(end.sum_sent.bits_per_second) / 1e9).
  returned: when measured
  type: float
  sample: 17.886935753360416
received_gbps:
  description: What the server received, Gbit/s (C(end.sum_received.bits_per_second) / 1e9).
  returned: when measured
  type: float
  sample: 17.8864707511561
sent_bytes:
  description: Bytes the client sent in the measured seconds (C(end.sum_sent.bytes)).
  returned: when measured
  type: int
received_bytes:
  description: Bytes the server received in the measured seconds (C(end.sum_received.bytes)).
  returned: when measured
  type: int
seconds:
  description: The measured seconds (C(end.sum_received.seconds)).
  returned: when measured
  type: float
retransmits:
  description: TCP retransmissions of all the streams (C(end.sum_sent.retransmits)); null where iperf3 cannot read them.
  returned: when measured
  type: int
streams:
  description: The number of streams the report has (C(end.streams)).
  returned: when measured
  type: int
  sample: 2
cpu:
  description: C(end.cpu_utilization_percent), percent of one CPU; C(host_*) is the client, C(remote_*) the server.
  returned: when measured
  type: dict
  contains:
    host_total:
      description: The client's CPU, user and system.
      type: float
    host_user:
      description: The client's CPU in user space.
      type: float
    host_system:
      description: The client's CPU in the kernel.
      type: float
    remote_total:
      description: The server's CPU, user and system.
      type: float
    remote_user:
      description: The server's CPU in user space.
      type: float
    remote_system:
      description: The server's CPU in the kernel.
      type: float
mss:
  description: The MSS the report gives (C(start.tcp_mss) when set, else C(start.tcp_mss_default)).
  returned: when measured
  type: int
version:
  description: The client's iperf3 (C(start.version)).
  returned: when measured
  type: str
  sample: iperf 3.12
"""

import os
import tempfile
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.offload.testbed.plugins.module_utils.host.runner import HostRunner, failure
from ansible_collections.offload.testbed.plugins.module_utils.generator import iperf3
from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.plugins.module_utils.host.netns import in_namespace

ARGUMENT_SPEC = dict(
    server=dict(type='str', required=True),
    bind=dict(type='str'),
    port=dict(type='int', default=iperf3.DEFAULT_PORT),
    streams=dict(type='int', default=1),
    duration=dict(type='int', default=10),
    mss=dict(type='int'),
    omit=dict(type='int', default=0),
    client_namespace=dict(type='str'),
    server_namespace=dict(type='str'),
    start_server=dict(type='bool', default=True),
    timeout=dict(type='int'),
)
RANGES = (('port', 1, 65535), ('streams', 1, 128), ('duration', 1, 3600), ('mss', iperf3.MSS_MIN, iperf3.MSS_MAX), ('omit', 0, 3600))
SERVER_START_SECONDS = 10
MEASUREMENT_KEYS = ('sent_gbps', 'received_gbps', 'sent_bytes', 'received_bytes', 'seconds', 'retransmits', 'streams', 'cpu', 'mss',
                    'version')


def errors_of(p):
    """Every option out of its range, and a timeout shorter than the run, named."""
    errors = []
    for name, low, high in RANGES:
        if p[name] is not None and not low <= p[name] <= high:
            errors.append('%s: %d is out of range (%d to %d)' % (name, p[name], low, high))
    if p['timeout'] is not None and p['timeout'] <= p['duration'] + (p['omit'] or 0):
        errors.append('timeout: %d s is not longer than the run (duration %d s + omit %d s)' % (p['timeout'], p['duration'], p['omit'] or 0))
    for name in ('server', 'bind'):
        if p[name] is not None and not p[name].strip():
            errors.append('%s: empty' % name)
    errors.extend(validate.netns_name(name, p[name]) for name in ('client_namespace', 'server_namespace') if p[name])
    return [error for error in errors if error]


def commands(p):
    """(client argv, server argv), each inside its namespace."""
    client = iperf3.client_argv(p['server'], p['port'], p['streams'], p['duration'], mss=p['mss'], omit=p['omit'])
    server = iperf3.server_argv(p['bind'] or p['server'], p['port'])
    return in_namespace(p['client_namespace'], client), in_namespace(p['server_namespace'], server)


def server_output(out, err):
    """What the server printed: its JSON error when it has one, else its stderr and stdout."""
    texts = []
    for handle in (out, err):
        handle.seek(0)
        texts.append(handle.read().decode('utf-8', 'replace').strip())
    try:
        error = iperf3.error_of(iperf3.load(texts[0]))
    except iperf3.Iperf3Error:
        error = None
    return error or ' '.join(text for text in reversed(texts) if text)


def wait_listening(module, proc, output, p):
    """Poll ``ss`` until the server listens; the error when it exits first or does not listen in time."""
    bind = p['bind'] or p['server']
    ss = in_namespace(p['server_namespace'], iperf3.ss_argv(p['port']))
    deadline = time.time() + SERVER_START_SECONDS
    while True:
        if proc.poll() is not None:
            return 'the iperf3 server exited (rc %s) before it listened: %s' % (proc.returncode, output() or 'it printed nothing')
        rc, stdout, stderr = HostRunner(module).read(ss, check_rc=False)
        if rc != 0:
            return failure(ss, rc, stdout, stderr)
        if iperf3.listening(stdout, bind, p['port']):
            return None
        if time.time() > deadline:
            return 'the iperf3 server did not listen on %s port %d within %d s' % (bind, p['port'], SERVER_START_SECONDS)
        time.sleep(iperf3.POLL_SECONDS)


def run_client(module, p, client):
    """(summary, None) or (None, error message)."""
    timeout = p['timeout'] or p['duration'] + (p['omit'] or 0) + 30
    rc, stdout, stderr = HostRunner(module).read(['timeout', '--kill-after=5', str(timeout)] + client, check_rc=False)
    if rc in (124, 137):
        return None, 'the iperf3 client did not finish within %d s (timeout)' % timeout
    try:
        result = iperf3.parse(stdout)
    except iperf3.Iperf3Error as exc:
        return None, '%s (rc %d)%s' % (exc, rc, ': ' + stderr.strip() if stderr.strip() else '')
    if result['error']:
        return None, 'iperf3 client: %s' % result['error']
    if rc != 0:
        return None, 'the iperf3 client failed (rc %d): %s' % (rc, stderr.strip())
    return result, None


def measure(module, p, client, server):
    """Start the server, wait until it listens, run the client, reap the server: (summary, None) or (None, error)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            with open(os.devnull) as devnull:
                proc = iperf3.start_server(server, out, err, devnull)
        except OSError as exc:
            return None, 'starting the iperf3 server (%s) failed: %s' % (' '.join(server), exc)
        summary, error = None, None
        try:
            error = wait_listening(module, proc, lambda: server_output(out, err), p)
            if not error:
                summary, error = run_client(module, p, client)
        finally:
            by_itself = iperf3.stop_server(proc, iperf3.REAP_SECONDS if summary else 0)
        if error and summary is None and by_itself and error.startswith('iperf3 client: '):
            error += '; server: %s' % (server_output(out, err) or 'it printed nothing')
        return summary, error


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    p = module.params
    errors = errors_of(p)
    if errors:
        module.fail_json(msg='; '.join(errors), errors=errors)
    client, server = commands(p)
    result = dict(changed=False, measured=False, command=client, server_command=server)
    if module.check_mode:
        module.exit_json(**result)
    if p['start_server']:
        summary, error = measure(module, p, client, server)
    else:
        summary, error = run_client(module, p, client)
    if error:
        module.fail_json(msg=error, **result)
    result['measured'] = True
    result.update((key, summary[key]) for key in MEASUREMENT_KEYS)
    module.exit_json(**result)


if __name__ == '__main__':
    main()

# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""iperf3_streams with the exact commands it runs answered from tables (the
server a fake process, the client and ss real outputs from fixtures/, see
test_iperf3.py for where each came from), its documentation against its
argument spec, and one real measurement on 127.0.0.1."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil

import pytest

from ansible.module_utils import basic
from ansible_collections.offload.testbed.plugins.modules import iperf3_streams
from ansible_collections.offload.testbed.plugins.module_utils.generator import iperf3 as iperf3_utils
from ansible_collections.offload.testbed.tests.support.free_ports import free_port
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import ModuleExit, patch_module_args, run_module
from ansible_collections.offload.testbed.tests.unit.plugins.modules.test_dpdk_docs import differences

import yaml

FIXTURES = os.path.join(os.path.dirname(__file__), 'fixtures')
SERVER = ('iperf3', '--server', '--one-off', '--bind', '127.0.0.1', '--port', '5201', '--json')
CLIENT = ('iperf3', '--client', '127.0.0.1', '--port', '5201', '--parallel', '2', '--time', '1', '--json')
SS = ('ss', '-Hltn', 'sport = :5201')
# ``ss -Hltn 'sport = :5299'`` as iproute2 6.1 printed it beside the loopback server, its port made 5201
SS_LISTENING = 'LISTEN 0      4096   127.0.0.1:5201 0.0.0.0:*\n'


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class FakeServer(object):
    """The server's Popen: it listens (as the ss answers say), prints ``output`` into its stdout file and exits
    ``exit_after`` polls after it started (None: it runs until terminated)."""

    started = []

    def __init__(self, argv, stdout=None, stderr=None, stdin=None, output='', stderr_output='', exit_after=None, rc=0):
        self.argv, self.returncode, self.signals, self.polls = list(argv), None, [], 0
        self.exit_after, self.rc = exit_after, rc
        stdout.write(output.encode())
        stderr.write(stderr_output.encode())
        FakeServer.started.append(self)

    def poll(self):
        self.polls += 1
        if self.returncode is None and self.exit_after is not None and self.polls > self.exit_after:
            self.returncode = self.rc
        return self.returncode

    def terminate(self):
        self.signals.append('TERM')
        self.returncode = -15

    def kill(self):
        self.signals.append('KILL')
        self.returncode = -9

    def wait(self):
        return self.returncode


@pytest.fixture
def server(monkeypatch):
    """Configure the fake server (``server.update(output=..., exit_after=...)``); ``server.started`` after the run."""
    FakeServer.started = []
    settings = {}

    def popen(argv, **kw):
        kw.update(settings)
        return FakeServer(argv, **kw)
    monkeypatch.setattr(iperf3_utils.subprocess, 'Popen', popen)
    monkeypatch.setattr(iperf3_utils.time, 'sleep', lambda seconds: None)
    monkeypatch.setattr(iperf3_streams.time, 'sleep', lambda seconds: None)
    settings.update(exit_after=2)
    return settings


def run(args, table, monkeypatch):
    return run_module(iperf3_streams.main, args, table, monkeypatch)


def client(timeout='31', argv=CLIENT):
    return ('timeout', '--kill-after=5', timeout) + tuple(argv)


ARGS = {'server': '127.0.0.1', 'streams': 2, 'duration': 1}


def test_one_measurement_server_then_client_then_the_server_reaped(server, monkeypatch):
    table = {SS: (0, SS_LISTENING, ''), client(): (0, fixture('iperf3_3.12_tcp_p2_loopback.json'), '')}
    result, failed, calls = run(ARGS, table, monkeypatch)
    assert not failed, result
    assert calls == [SS, client()]
    assert [s.argv for s in FakeServer.started] == [list(SERVER)] and FakeServer.started[0].signals == []
    report = json.loads(fixture('iperf3_3.12_tcp_p2_loopback.json'))['end']
    assert result == {
        'changed': False, 'measured': True, 'command': list(CLIENT), 'server_command': list(SERVER),
        'sent_gbps': report['sum_sent']['bits_per_second'] / 1e9, 'received_gbps': report['sum_received']['bits_per_second'] / 1e9,
        'sent_bytes': 2236088320, 'received_bytes': 2236088320, 'seconds': 1.000125, 'retransmits': 9, 'streams': 2,
        'cpu': report['cpu_utilization_percent'], 'mss': 32768, 'version': 'iperf 3.12'}


def test_without_start_server_only_the_client_runs_against_a_server_elsewhere(server, monkeypatch):
    table = {client(): (0, fixture('iperf3_3.12_tcp_p2_loopback.json'), '')}
    result, failed, calls = run(dict(ARGS, start_server=False), table, monkeypatch)
    assert not failed, result
    assert calls == [client()] and FakeServer.started == []
    assert result['measured'] and result['streams'] == 2


def test_namespaces_bind_mss_omit_and_the_poll_until_the_server_listens(server, monkeypatch):
    args = {'server': '10.10.0.2', 'bind': '0.0.0.0', 'port': 5202, 'streams': 2, 'duration': 1, 'mss': 1400, 'omit': 1,
            'server_namespace': 'tenant-b', 'client_namespace': 'tenant-a', 'timeout': 20}
    ss = ('ip', 'netns', 'exec', 'tenant-b', 'ss', '-Hltn', 'sport = :5202')
    argv = ('ip', 'netns', 'exec', 'tenant-a', 'iperf3', '--client', '10.10.0.2', '--port', '5202', '--parallel', '2', '--time', '1',
            '--json', '--set-mss', '1400', '--omit', '1')
    server.update(exit_after=5)
    table = {ss: lambda calls: (0, '' if len(calls) < 3 else SS_LISTENING.replace('127.0.0.1:5201', '0.0.0.0:5202'), ''),
             client('20', argv): (0, fixture('iperf3_3.12_tcp_p2_mss1400_omit1_loopback.json'), '')}
    result, failed, calls = run(args, table, monkeypatch)
    assert not failed, result
    assert calls == [ss, ss, ss, client('20', argv)]
    assert FakeServer.started[0].argv == ['ip', 'netns', 'exec', 'tenant-b', 'iperf3', '--server', '--one-off', '--bind', '0.0.0.0',
                                          '--port', '5202', '--json']
    assert result['command'] == list(argv) and result['mss'] == 1400 and result['streams'] == 2


def test_a_server_that_cannot_listen_fails_with_its_json_error(server, monkeypatch):
    server.update(exit_after=0, rc=1, output=fixture('iperf3_3.12_server_address_in_use.json'), stderr_output='iperf3: exiting\n')
    result, failed, calls = run(ARGS, {}, monkeypatch)
    assert failed and calls == []
    assert result['msg'] == ('the iperf3 server exited (rc 1) before it listened: '
                             'error - unable to start listener for connections: Address already in use')
    assert result['measured'] is False


def test_a_refused_client_fails_on_its_json_error_though_it_exits_0_and_the_server_is_stopped(server, monkeypatch):
    server.update(exit_after=None)
    table = {SS: (0, SS_LISTENING, ''), client(): (0, fixture('iperf3_3.12_connection_refused.json'), '')}
    result, failed, calls = run(ARGS, table, monkeypatch)
    assert failed and calls == [SS, client()]
    assert result['msg'] == 'iperf3 client: unable to connect to server: Connection refused'
    assert FakeServer.started[0].signals == ['TERM']


def test_a_client_error_says_what_the_server_said_when_it_exited_by_itself(server, monkeypatch):
    server.update(exit_after=1, rc=1, output=fixture('iperf3_3.12_server_address_in_use.json'))
    table = {SS: (0, SS_LISTENING, ''), client(): (0, fixture('iperf3_3.12_mss_invalid_argument.json'), '')}
    result, failed, calls = run(ARGS, table, monkeypatch)
    # the server's output here is only there to be quoted: which report a server prints then was not captured
    assert failed and result['msg'] == ('iperf3 client: unable to set TCP/SCTP MSS: Invalid argument; '
                                        'server: error - unable to start listener for connections: Address already in use')


def test_a_client_that_prints_no_json_fails_with_its_words(server, monkeypatch):
    table = {SS: (0, SS_LISTENING, ''),
             client(): (1, fixture('iperf3_3.12_mss_too_large_stdout.txt'), fixture('iperf3_3.12_mss_too_large_stderr.txt'))}
    result, failed, calls = run(ARGS, table, monkeypatch)
    assert failed and result['msg'] == ('iperf3 did not print a JSON report: Usage: iperf3 [-s|-c host] [options] (rc 1): '
                                        'iperf3: parameter error - TCP MSS too large (maximum = 9216 bytes)')


def test_a_client_past_its_timeout(server, monkeypatch):
    server.update(exit_after=None)
    table = {SS: (0, SS_LISTENING, ''), client(): (124, '', '')}
    result, failed, calls = run(ARGS, table, monkeypatch)
    assert failed and result['msg'] == 'the iperf3 client did not finish within 31 s (timeout)'
    assert FakeServer.started[0].signals == ['TERM']


def test_options_out_of_range_are_all_reported_at_once_and_nothing_runs(server, monkeypatch):
    args = {'server': '10.10.0.2', 'port': 70000, 'streams': 129, 'duration': 4000, 'mss': 50, 'omit': -1, 'timeout': 1}
    result, failed, calls = run(args, {}, monkeypatch)
    assert failed and calls == [] and FakeServer.started == []
    assert result['errors'] == [
        'port: 70000 is out of range (1 to 65535)', 'streams: 129 is out of range (1 to 128)', 'duration: 4000 is out of range (1 to 3600)',
        'mss: 50 is out of range (88 to 9216)', 'omit: -1 is out of range (0 to 3600)',
        'timeout: 1 s is not longer than the run (duration 4000 s + omit -1 s)']
    assert result['msg'] == '; '.join(result['errors'])


def test_namespace_names_are_checked_by_the_one_rule_before_anything_runs(server, monkeypatch):
    args = dict(ARGS, client_namespace='ltb vtep', server_namespace='ltb-tsrv ')
    result, failed, calls = run(args, {}, monkeypatch)
    assert failed and calls == [] and FakeServer.started == []
    assert result['errors'] == [
        "client_namespace: 'ltb vtep' is no network namespace name (ip netns takes 1 to 255 characters, no '/', not '.' or '..', and a name "
        "with white space breaks the command lines it goes into); use letters, digits, '-', '_' and '.'",
        "server_namespace: 'ltb-tsrv ' has trailing white space, which would be part of the namespace's name (ip netns list shows it); "
        "write 'ltb-tsrv'"]


def test_check_mode_runs_nothing(server, monkeypatch):
    result, failed, calls = run(dict(ARGS, _ansible_check_mode=True), {}, monkeypatch)
    assert not failed and calls == [] and FakeServer.started == []
    assert result == {'changed': False, 'measured': False, 'command': list(CLIENT), 'server_command': list(SERVER)}


def test_documentation_is_the_argument_spec():
    doc = yaml.safe_load(iperf3_streams.DOCUMENTATION)
    assert doc['module'] == 'iperf3_streams'
    assert differences(doc['options'], iperf3_streams.ARGUMENT_SPEC) == []
    assert yaml.safe_load(iperf3_streams.EXAMPLES)
    returned = yaml.safe_load(iperf3_streams.RETURN)
    assert set(returned) == {'measured', 'errors', 'command', 'server_command'} | set(iperf3_streams.MEASUREMENT_KEYS)


@pytest.mark.skipif(not (shutil.which('iperf3') and shutil.which('ss') and shutil.which('timeout')),
                    reason='needs iperf3 (Debian package iperf3), ss (iproute2) and timeout (coreutils)')
def test_a_real_measurement_on_loopback(monkeypatch):
    port = free_port()

    def leave(self, **kw):
        raise ModuleExit(kw, kw.get('failed', False))

    def fail(self, **kw):
        raise ModuleExit(kw, True)
    monkeypatch.setattr(basic.AnsibleModule, 'exit_json', leave)
    monkeypatch.setattr(basic.AnsibleModule, 'fail_json', fail)
    with patch_module_args({'server': '127.0.0.1', 'port': port, 'streams': 2, 'duration': 1}):
        with pytest.raises(ModuleExit) as exc:
            iperf3_streams.main()
    result = exc.value.result
    assert not exc.value.failed, result
    assert result['measured'] and result['received_gbps'] > 0 and result['streams'] == 2
    assert result['command'] == ['iperf3', '--client', '127.0.0.1', '--port', str(port), '--parallel', '2', '--time', '1', '--json']
    assert result['cpu']['host_total'] is not None and result['version'].startswith('iperf 3.')

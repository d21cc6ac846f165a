# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The iperf3 JSON parser over real reports, its errors, and the command lines.

The fixtures (tests/unit/plugins/modules/fixtures/iperf3_*) are verbatim
iperf3 outputs, none edited:

- iperf3_3.12_*: Debian 12's iperf3 3.12 on this project's development VM
  (kernel 6.18, 2 CPUs), server and client on 127.0.0.1:
  ``tcp_p2_loopback``: ``iperf3 -c 127.0.0.1 -p 5299 -P 2 -t 1 -J`` against
  ``iperf3 -s -1 -B 127.0.0.1 -p 5299 -D``; ``tcp_p2_mss1400_omit1_loopback``:
  the same with ``-O 1 -M 1400``; ``udp_loopback``: ``-u -b 10M -t 1``;
  ``server_one_off_p2_loopback``: what ``iperf3 -s -1 -B 127.0.0.1 -p 5299 -J``
  printed for a ``-P 2 -t 1`` client; ``connection_refused``:
  ``iperf3 -c 127.0.0.1 -p 5298 -J`` with no server (exit code 0);
  ``mss_invalid_argument``: ``-M 50``, which Linux refuses (exit code 0);
  ``server_address_in_use``: the stdout of a second ``iperf3 -s -1 -B 127.0.0.1
  -p 5299 -J`` while the first listened (exit code 1; ``iperf3: exiting`` on stderr);
  ``mss_too_large_stdout.txt`` / ``_stderr.txt``: ``-M 10000``, refused by
  iperf3's own option check (exit code 1, no JSON).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.generator import iperf3

FIXTURES = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', 'modules', 'fixtures'))
TCP_REPORTS = ['iperf3_3.12_tcp_p2_loopback.json', 'iperf3_3.12_tcp_p2_mss1400_omit1_loopback.json']


def text(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def raw(name):
    return json.loads(text(name))


def test_every_iperf3_fixture_is_read_here():
    on_disk = sorted(name for name in os.listdir(FIXTURES) if name.startswith('iperf3_'))
    read = TCP_REPORTS + ['iperf3_3.12_udp_loopback.json', 'iperf3_3.12_server_one_off_p2_loopback.json', 'iperf3_3.12_connection_refused.json',
                          'iperf3_3.12_mss_invalid_argument.json', 'iperf3_3.12_server_address_in_use.json',
                          'iperf3_3.12_mss_too_large_stdout.txt', 'iperf3_3.12_mss_too_large_stderr.txt']
    assert on_disk == sorted(read)


@pytest.mark.parametrize('name', TCP_REPORTS)
def test_a_tcp_report_is_read_from_its_end_sums(name):
    doc = raw(name)
    sent, received = doc['end']['sum_sent'], doc['end']['sum_received']
    result = iperf3.parse(text(name))
    assert result['sent_gbps'] == sent['bits_per_second'] / 1e9
    assert result['received_gbps'] == received['bits_per_second'] / 1e9
    assert result['sent_bytes'] == sent['bytes'] and result['received_bytes'] == received['bytes']
    assert result['seconds'] == received['seconds']
    assert result['retransmits'] == sent['retransmits'] == sum(stream['sender']['retransmits'] for stream in doc['end']['streams'])
    assert result['streams'] == len(doc['end']['streams']) == doc['start']['test_start']['num_streams']
    assert result['cpu'] == doc['end']['cpu_utilization_percent']
    assert result['version'] == doc['start']['version'] and result['protocol'] == 'TCP'
    assert result['error'] is None


def test_the_two_stream_loopback_report_in_numbers():
    result = iperf3.parse(text('iperf3_3.12_tcp_p2_loopback.json'))
    assert result['sent_gbps'] == pytest.approx(17.886935753360416)
    assert result['received_gbps'] == pytest.approx(17.8864707511561)
    assert result['sent_bytes'] == result['received_bytes'] == 2236088320
    assert result['seconds'] == 1.000125 and result['retransmits'] == 9 and result['streams'] == 2
    assert result['mss'] == 32768 and result['version'] == 'iperf 3.12' and result['omit'] == 0
    assert result['cpu']['host_total'] == pytest.approx(53.8392106323798)
    assert result['cpu']['remote_system'] == pytest.approx(43.360689667584545)


def test_a_set_mss_is_the_one_reported_and_omitted_intervals_stay_out_of_the_sums():
    doc = raw('iperf3_3.12_tcp_p2_mss1400_omit1_loopback.json')
    result = iperf3.parse(text('iperf3_3.12_tcp_p2_mss1400_omit1_loopback.json'))
    assert result['mss'] == 1400 == doc['start']['tcp_mss'] and 'tcp_mss_default' not in doc['start']
    assert result['omit'] == 1
    measured = [interval['sum'] for interval in doc['intervals'] if not interval['sum']['omitted']]
    assert len(measured) < len(doc['intervals'])
    assert result['sent_bytes'] == sum(interval['bytes'] for interval in measured)


def test_udp_has_no_retransmits_and_no_mss():
    doc = raw('iperf3_3.12_udp_loopback.json')
    result = iperf3.parse(text('iperf3_3.12_udp_loopback.json'))
    assert 'retransmits' not in doc['end']['sum_sent']
    assert result['retransmits'] is None and result['mss'] is None
    assert result['protocol'] == 'UDP' and result['streams'] == 1
    assert result['received_gbps'] == doc['end']['sum_received']['bits_per_second'] / 1e9


def test_the_servers_own_report_parses_too():
    doc = raw('iperf3_3.12_server_one_off_p2_loopback.json')
    result = iperf3.parse(text('iperf3_3.12_server_one_off_p2_loopback.json'))
    assert result['error'] is None and result['streams'] == len(doc['end']['streams']) == 2
    assert result['received_bytes'] == doc['end']['sum_received']['bytes'] > 0


@pytest.mark.parametrize('name, message', [
    ('iperf3_3.12_connection_refused.json', 'unable to connect to server: Connection refused'),
    ('iperf3_3.12_mss_invalid_argument.json', 'unable to set TCP/SCTP MSS: Invalid argument'),
    ('iperf3_3.12_server_address_in_use.json', 'error - unable to start listener for connections: Address already in use'),
])
def test_a_json_error_is_the_message_and_nothing_is_measured(name, message):
    result = iperf3.parse(text(name))
    assert result['error'] == message
    assert result['sent_gbps'] is None and result['received_gbps'] is None and result['retransmits'] is None
    assert result['cpu'] == dict((key, None) for key in iperf3.CPU_KEYS)
    assert result['version'] == 'iperf 3.12'


def test_a_command_line_error_is_not_json():
    with pytest.raises(iperf3.Iperf3Error) as exc:
        iperf3.parse(text('iperf3_3.12_mss_too_large_stdout.txt'))
    assert str(exc.value) == 'iperf3 did not print a JSON report: Usage: iperf3 [-s|-c host] [options]'
    with pytest.raises(iperf3.Iperf3Error) as exc:
        iperf3.parse(text('iperf3_3.12_mss_too_large_stderr.txt'))
    assert str(exc.value) == 'iperf3 did not print a JSON report: iperf3: parameter error - TCP MSS too large (maximum = 9216 bytes)'


@pytest.mark.parametrize('output, message', [
    ('', 'iperf3 printed nothing (no JSON report)'),
    ('  \n', 'iperf3 printed nothing (no JSON report)'),
    ('[1, 2]', 'iperf3 printed JSON that is not a report (a list, not an object)'),
    # the first half of the loopback report: a run cut short
    (None, 'iperf3 did not print a JSON report: {'),
])
def test_what_is_not_a_report(output, message):
    if output is None:
        whole = text('iperf3_3.12_tcp_p2_loopback.json')
        output = whole[:len(whole) // 2]
    with pytest.raises(iperf3.Iperf3Error) as exc:
        iperf3.parse(output)
    assert str(exc.value) == message


def test_missing_optional_sections_are_none():
    doc = raw('iperf3_3.12_tcp_p2_loopback.json')
    del doc['end']['cpu_utilization_percent'], doc['end']['streams'], doc['start']['tcp_mss_default']
    del doc['end']['sum_sent']['retransmits'], doc['end']['sum_received']
    result = iperf3.summary(doc)
    assert result['streams'] == 2  # from start.test_start.num_streams
    assert result['cpu']['host_total'] is None and result['mss'] is None and result['retransmits'] is None
    assert result['received_gbps'] is None and result['seconds'] == doc['end']['sum_sent']['seconds']
    assert iperf3.summary({})['streams'] is None and iperf3.summary({'end': []})['sent_gbps'] is None


def test_client_argv_minimal_and_full():
    assert iperf3.client_argv('10.10.0.2', 5201, 4, 10) == [
        'iperf3', '--client', '10.10.0.2', '--port', '5201', '--parallel', '4', '--time', '10', '--json']
    assert iperf3.client_argv('10.10.0.2', 5202, 8, 30, mss=1400, length='128K', omit=2, bind='10.10.0.1', zerocopy=True) == [
        'iperf3', '--client', '10.10.0.2', '--port', '5202', '--parallel', '8', '--time', '30', '--json',
        '--set-mss', '1400', '--length', '128K', '--omit', '2', '--bind', '10.10.0.1', '--zerocopy']
    assert iperf3.client_argv('::1', 5201, 1, 1, omit=0) == ['iperf3', '--client', '::1', '--port', '5201', '--parallel', '1', '--time', '1', '--json']


def test_server_argv():
    assert iperf3.server_argv('10.10.0.2', 5201) == ['iperf3', '--server', '--one-off', '--bind', '10.10.0.2', '--port', '5201', '--json']


# ``ss -Hltn 'sport = :5299'`` as iproute2 6.1 printed it while the loopback server listened
SS_LISTENING = 'LISTEN 0      4096   127.0.0.1:5299 0.0.0.0:*\n'


def test_listening():
    assert iperf3.ss_argv(5299) == ['ss', '-Hltn', 'sport = :5299']
    assert iperf3.listening(SS_LISTENING, '127.0.0.1', 5299)
    assert not iperf3.listening(SS_LISTENING, '127.0.0.1', 5201)
    assert not iperf3.listening(SS_LISTENING, '10.10.0.2', 5299)
    assert not iperf3.listening('', '127.0.0.1', 5299)
    # variants of that line: IPv6 and wildcard listeners
    assert iperf3.listening('LISTEN 0      4096   [::1]:5299 [::]:*\n', '::1', 5299)
    assert iperf3.listening('LISTEN 0      4096   0.0.0.0:5299 0.0.0.0:*\n', '10.10.0.2', 5299)
    assert iperf3.listening('LISTEN 0      4096   *:5299 *:*\n', '10.10.0.2', 5299)
    # a name, not an address: any listener on the port
    assert iperf3.listening(SS_LISTENING, 'localhost', 5299) and not iperf3.listening(SS_LISTENING, 'localhost', 5201)

#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

# Documentation only: the work is done by the action plugin plugins/action/trex_bench.py on the controller.

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: trex_bench
short_description: Find NDR and PDR of the device under test with a TRex generator
version_added: 0.1.0
description:
  - Runs on the controller. The TRex stateless client in the controller's Python connects to the generator's TRex
    server (real TRex, or the virtual lab's software generator) and sends the traffic; the task's host is the device
    under test, where M(offload.testbed.dut_health) reads the health of Open vSwitch before and after every trial.
  - Builds the traffic from its arguments (scenario, protocol, frame sizes, flows, VLAN, direction), warms the DUT up
    (stateful scenarios need their conntrack entries before the first measured trial), then runs the multi-goal
    throughput search of C(plugins/plugin_utils/bench/search.py) once per frame size (and per flow count, with a list of
    O(flows)); NDR, NDR at 0.001 % and PDR at 0.5 % in one pass by default, bounds confirmed by O(final_duration) trials.
  - Every finished trial is written at once to O(results_dir)/O(run_id).json (schema C(docs/results-schema.json)); a
    line per goal goes to O(results_dir)/results.csv when a frame size is done. Running again with the same O(run_id)
    resumes where the run stopped.
  - A trial whose achieved rate is more than 1 % below the asked rate is marked C(generator_limited), and so is a bound
    resting on it. A trial during which ovs-vswitchd restarted or a core dump appeared is recorded as invalid and
    retried up to O(retries) times.
  - A trial interrupted by a lost generator (connection lost, subscriber timed out, server restarted) is recorded under
    C(interrupted_trials), never as a measurement; the bench reconnects and runs it again (O(reconnects),
    O(reconnect_delay)), then fails with one line naming the file that holds the finished trials and how to resume.
  - Every trial records what used the DUT's CPUs during it (C(cpu)) and why the DUT was starved (C(starved)); a trial
    whose receiver counted more frames than were sent gets C(excess) and a loss ratio of 0.
  - The work is done by C(plugins/plugin_utils/bench/) (C(BenchRun) over a generator interface, see C(docs/bench.md)).
  - Prints one progress line per trial and sets C(set_stats) data C(trex_bench) with the bounds (AWX job artifacts).
  - Requires on the controller the TRex client of O(client) (PyPI C(trex-stl-lib) with C(pyzmq) and C(scapy) for
    C(trex_stl_lib); PyPI C(lbr-trex-client), or a TRex install at O(client_path), for C(trex)).
  - "Loads are aggregate frames per second over the transmitting ports (with O(direction=bidir) each port sends half)."
  - "TCP: segments with the ACK flag and fixed sequence numbers per flow, which Linux conntrack (C(nf_conntrack_tcp_loose=1),
    the default) and the OVS userspace conntrack pick up mid-stream as established connections; the warm-up creates them."
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.bench.traffic
attributes:
  check_mode:
    description: Validates the arguments only; no traffic is sent and nothing is written.
  diff_mode:
    description: Nothing on a host changes.
options:
  generator:
    description:
      - The traffic generator. C(trex) is a TRex server (or the virtual lab's software generator) through O(client).
      - C(testpmd) is DPDK's C(dpdk-testpmd) on the controller, driven at its interactive prompt (O(testpmd)); C(txonly)
        forwarding sends one UDP flow (O(protocol=udp), O(flows=1), O(direction=uni), no O(vlan)), no latency; see
        C(docs/testpmd_generator.md). A kernel sending interface (O(testpmd.tx_interface)) is paced at each trial's load by
        a C(tbf) qdisc; an EAL device (O(testpmd.tx_device), for example a port bound to vfio-pci) sends at full rate only.
    type: str
    choices: [trex, testpmd]
    default: trex
  testpmd:
    description: The options of O(generator=testpmd); required with it, refused without it.
    type: dict
    suboptions:
      binary:
        description: The C(dpdk-testpmd) program (Debian's C(dpdk) package has C(/usr/bin/dpdk-testpmd)).
        type: str
        default: dpdk-testpmd
      tx_namespace:
        description: Network namespace of O(testpmd.tx_interface), where the sending testpmd runs (with O(testpmd.tx_device),
          the namespace it runs in); unset, the controller's own.
        type: str
      tx_interface:
        description:
          - The sending kernel interface. testpmd's port is the af_packet PMD on it with C(qdisc_bypass=0), paced by a C(tbf)
            root qdisc the generator sets for each trial and deletes at the end (the interface must have the kernel's default
            root qdisc). The frames sent are the growth of its C(tx_packets).
          - One of O(testpmd.tx_interface) and O(testpmd.tx_device).
        type: str
      tx_device:
        description:
          - The sending port as an EAL device, a PCI address (C(-a), a port bound to vfio-pci) or a C(--vdev) string. Not paced;
            only trials at O(max_load) run, at full rate (set O(warmup_duration=0)); any other load is refused.
          - One of O(testpmd.tx_interface) and O(testpmd.tx_device).
        type: str
      rx_namespace:
        description: Network namespace of O(testpmd.rx_interface), or where the receiving testpmd of O(testpmd.rx_device) runs.
        type: str
      rx_interface:
        description: The receiving kernel interface; the frames received are the growth of its C(rx_packets). One of
          O(testpmd.rx_interface) and O(testpmd.rx_device).
        type: str
      rx_device:
        description: The receiving port as an EAL device (PCI address or C(--vdev)) of a second testpmd in C(rxonly) forwarding
          (file prefix C(<file_prefix>-rx)) whose C(RX-packets) count. One of O(testpmd.rx_interface) and O(testpmd.rx_device).
        type: str
      eal_args:
        description: More EAL arguments for both testpmd processes (for example C([-n, "4"])).
        type: list
        elements: str
        default: []
      huge_dir:
        description: The hugetlbfs mount testpmd uses (C(--huge-dir)); unset, EAL finds one.
        type: path
      file_prefix:
        description: The EAL C(--file-prefix) (runtime directory C(/var/run/dpdk/<prefix>) and hugepage files, removed when testpmd
          exits); unset, C(tbench-<pid>) of the controller's worker.
        type: str
      lcores:
        description: EAL core list (C(--lcores)) of the sending testpmd, for example C(0-1), or C(0@3,1@3) for both lcores on CPU 3;
          the first is its main lcore (it reads the commands), the next forwards. At least two, or the list is refused
          (with one, testpmd has no forwarding lcore and stops).
        type: str
        default: 0-1
      rx_lcores:
        description: EAL core list of the receiving testpmd (O(testpmd.rx_device)), at least two lcores as for O(testpmd.lcores).
        type: str
        default: 0-1
      total_num_mbufs:
        description: C(--total-num-mbufs) of each testpmd (testpmd's default needs more than 128 2 MB hugepages).
        type: int
        default: 8192
      peer_mac:
        description: Destination MAC of the frames (C(--eth-peer=0,MAC)), for example the DUT port's; unset, testpmd's
          C(02:00:00:00:00:00).
        type: str
      startup_timeout:
        description: Seconds the EAL start-up of a testpmd may take.
        type: float
        default: 60
  server:
    description: Address of the generator's TRex server.
    type: str
    default: 127.0.0.1
  sync_port:
    description: TRex RPC port.
    type: int
    default: 4501
  async_port:
    description: TRex publisher port.
    type: int
    default: 4500
  client:
    description:
      - Which client speaks to the server.
      - C(trex_stl_lib) is PyPI's C(trex-stl-lib) 0.3 (the old API, which the software generator and older TRex servers
        speak), on the controller's scapy.
      - C(trex) is C(trex.stl.api), the client of TRex v3.x. Without O(client_path) it is PyPI's C(lbr-trex-client)
        (C(pip install lbr-trex-client)); with O(client_path), the one of that TRex install. It brings its own scapy
        (2.4.3, patched by TRex).
    type: str
    choices: [trex_stl_lib, trex]
    default: trex_stl_lib
  client_path:
    description:
      - Only for O(client=trex). Directory holding the C(trex) package of a TRex install (trex-core's
        C(scripts/automation/trex_control_plane/interactive)), to use the client of the server's own release.
      - Unset, the client comes from PyPI's C(lbr-trex-client).
    type: path
  ports:
    description: Generator ports C([transmit, receive]); with O(direction=bidir) both send and both receive. With O(rx_server),
      only the transmitting port, for example C([0]).
    type: list
    elements: int
    default: [0, 1]
  rx_server:
    description: A second TRex server whose ports receive (the virtual lab runs one softgen instance for the client port and
      one for the backends); the received count is the growth of their C(ipackets) during the trial. The bench only reads
      it, it does not reset or configure its ports.
    type: dict
    suboptions:
      server:
        description: Address of that server.
        type: str
        required: true
      sync_port:
        description: Its RPC port.
        type: int
        default: 4501
      async_port:
        description: Its publisher port.
        type: int
        default: 4500
      ports:
        description: Its receiving ports.
        type: list
        elements: int
        required: true
  port_l3:
    description: Per generator port (same order as O(ports)), an L3 configuration C({src, gateway}); the port resolves
      its gateway by ARP and sends to its MAC. Without it the ports stay in their current L2/L3 configuration.
    type: list
    elements: dict
    suboptions:
      src:
        description: IPv4 address of the port.
        type: str
        required: true
      gateway:
        description: IPv4 address of the next hop the port sends to.
        type: str
        required: true
  scenario:
    description: C(routing) sends from the user cloud to the server cloud; C(nat) to O(nat_address); C(lb) to O(lb_vip).
    type: str
    choices: [routing, nat, lb]
    default: routing
  protocol:
    description: Transport of the frames.
    type: str
    choices: [udp, tcp]
    default: udp
  frame_sizes:
    description:
      - Ethernet frame sizes in bytes, FCS included (64..9216); one search per size.
      - Or V(imix) among them, TRex's IMIX (its C(scripts/stl/imix.py)) - frames of 64, 594 and 1518 bytes at 28:16:4 per
        transmitting port, with the flows and scenario of the others; its bounds are frames/s of the mix, its Gbps those of the
        mix's average frame (361.8 B). Not with O(generator=testpmd).
    type: list
    elements: raw
    default: [64, 78, 100]
  flows:
    description:
      - Number of flows; source addresses run over this many addresses from O(src_base) (1..16777216).
      - Or a list of flow counts, for example C([1000, 100000, 1000000]) (each 1..16777216, each once) to see how the bound scales
        with the number of flows (the DUT's flow rules, conntrack entries, offloaded flows); each frame size is then searched at
        each count in turn (with O(repeat), each of those searches repeats), every search records its count (C(profile.flows)) and
        the run the list (C(search.flow_counts)), and M(offload.testbed.bench_report) plots every goal's bound against the number
        of flows.
      - A run resumes (same O(run_id)) only with the same flows, and finds its searches by frame size, flow count and repeat.
      - With O(generator=testpmd) only C(1) (or C([1])).
    type: raw
    default: 1000
  destinations:
    description: For C(routing), number of destination addresses from O(dst_base).
    type: int
    default: 1
  src_base:
    description: First source address (the user cloud, 16.0.0.0/8).
    type: str
    default: 16.0.0.1
  dst_base:
    description: First destination address for C(routing) (the server cloud, 48.0.0.0/8).
    type: str
    default: 48.0.0.1
  nat_address:
    description: Destination of the C(nat) scenario.
    type: str
  lb_vip:
    description: Destination of the C(lb) scenario (the load balancer's VIP).
    type: str
  src_port:
    description: UDP/TCP source port.
    type: int
    default: 1025
  dst_port:
    description: UDP/TCP destination port.
    type: int
    default: 5001
  vlan:
    description:
      - 802.1Q tag of the frames; unset for untagged frames.
      - With O(encapsulation.type=qinq), the C-tag inside the S-tag.
    type: int
  direction:
    description: C(uni) sends from the first port to the second; C(bidir) (routing only) also sends the reverse.
    type: str
    choices: [uni, bidir]
    default: uni
  goals:
    description:
      - Loss-ratio goals C({name, loss_ratio}), all found in one search; by default NDR, NDR at 0.001 % and PDR at 0.5 %.
      - A goal may carry the attributes of RFC 9971 (Multiple Loss Ratio Search) or name one of its presets. A goal that
        sets O(goals[].exceed_ratio), O(goals[].duration_sum) or O(goals[].final_duration) is searched by the RFC's load
        classification, and its bounds are the RFC's relevant bounds. Every goal's result carries the RFC's
        C(conditional_throughput) and whether it is C(regular) (else C(irregular) says why).
    type: list
    elements: dict
    default:
      - {name: ndr, loss_ratio: 0.0}
      - {name: ndr_1e-5, loss_ratio: 0.00001}
      - {name: pdr, loss_ratio: 0.005}
    suboptions:
      name:
        description: Name of the goal; its bounds are stored under it. Different for every goal. Default the preset's name.
        type: str
      loss_ratio:
        description: The highest ratio of lost frames a load may have to meet the goal, in [0, 1). Required without a preset.
        type: float
      preset:
        description:
          - One of RFC 9971's goals. C(rfc2544), RFC 2544's throughput (60 s trials, 60 s per load, loss 0, exceed 0);
            C(tst009), ETSI TST009's binary search with loss verification (60 s trials, 120 s per load, loss 0, exceed 0.5).
          - Other suboptions given beside it override the preset's.
        type: str
        choices: [rfc2544, tst009]
      exceed_ratio:
        description: RFC 9971's goal exceed ratio, in [0, 1) - the share of a load's trial time that may lose more than O(goals[].loss_ratio).
        type: float
      final_duration:
        description: RFC 9971's goal final trial duration, s; shorter trials count as the RFC counts short trials. Default O(final_duration).
        type: float
      duration_sum:
        description: RFC 9971's goal duration sum, s - the trial time one load needs before it is classified. Default the goal's final duration.
        type: float
      initial_duration:
        description: RFC 9971's goal initial trial duration, s (a hint to the search). Default O(initial_duration).
        type: float
      width:
        description: RFC 9971's goal width, relative as O(width), in (0, 0.5). Default O(width).
        type: float
  width:
    description: Relative width of the result, (upper - lower) / upper, in (0, 0.5).
    type: float
    default: 0.005
  final_duration:
    description: Seconds of the trials that confirm every reported bound.
    type: float
    default: 10.0
  initial_duration:
    description: Seconds of the exploratory trials.
    type: float
    default: 1.0
  upper_bound_duration:
    description:
      - The shortest trial whose loss may make an upper bound, between O(initial_duration) and O(final_duration).
      - Unset, every upper bound is confirmed by a O(final_duration) trial, as every lower bound is.
      - Set to O(initial_duration) it applies MLRsearch's rule (a short trial that lost too much is an upper bound), which spends
        fewer trial seconds (C(benchmarks/search_efficiency.py)) but lets a short loss burst lower a bound. Lower bounds always
        rest on O(final_duration) trials.
    type: float
  confirm_upper:
    description:
      - With goals that give RFC 9971's attributes, count only full-length trials (our stricter rule - every bound, the upper
        one too, rests on trials of the goal's final duration). By default the RFC's classification decides, where a short
        trial that lost too much counts towards an upper bound.
      - Goals without RFC 9971's attributes always confirm their upper bound with a final trial (see O(upper_bound_duration)).
    type: bool
    default: false
  max_load:
    description: Highest load to try, frames/s (line rate, or the generator's ceiling). The default is the line rate of
      10 Gigabit Ethernet at 64-byte frames.
    type: float
    default: 14880952
  line_rate_gbps:
    description:
      - Line rate of one DUT port, Gb/s (for example 25 for a ConnectX-6 Lx port). Recorded with the results (C(search.line_rate_gbps)),
        not used by the search; the report and the C(set_stats) data give every bound as a share of it.
      - Unset, the line rate is not known and no share is given.
    type: float
  min_load:
    description: Lowest load to try, frames/s; default O(max_load) / 1000.
    type: float
  warmup_duration:
    description: Seconds of the warm-up trial before each search (0 to skip).
    type: float
    default: 2.0
  warmup_load:
    description: Load of the warm-up trial, frames/s; default O(max_load) / 10.
    type: float
  settle:
    description: Seconds to wait after the traffic stops before the counters are read (frames in flight).
    type: float
    default: 0.5
  repeat:
    description:
      - How many times each search (one per frame size) is run; the bounds are reported as the median of the repetitions
        and their spread.
      - A run with another O(repeat) is another run (a run resumes only with the O(repeat) it was started with).
    type: int
    default: 1
  results_dir:
    description: Directory on the controller for the results JSON and CSV.
    type: path
    required: true
  results_db:
    description:
      - Write the run into the results database as well, each time its file is written and just before it (a trial in the file
        is in the database); the tables are those M(offload.testbed.bench_results_db) imports files into.
      - A database that fails during the run does not stop it (the file stays the primary record); the error is returned in
        RV(results_db) and warned about, and the next write that reaches the database writes the whole run again. A database that
        cannot be opened at the start refuses the run before any traffic.
    type: bool
    default: true
  results_db_url:
    description:
      - The results database, as an SQLAlchemy URL; default C(sqlite:///<results_dir>/results.db) (nothing to install beyond
        SQLAlchemy, on the controller).
      - A lab's shared store, or what an AWX job writes to, is PostgreSQL, C(postgresql+psycopg://user:password@host:5432/dbname)
        (psycopg 3 on the controller). The password is never shown.
    type: str
  run_id:
    description: Names the results file; the same run id resumes a run. Default C(<datapath>-<scenario>-<protocol>-<UTC time>).
    type: str
  datapath:
    description: Label of the DUT's datapath (for example C(doca), C(kernel), C(netdev)), stored with the results.
    type: str
    default: unknown
  metadata:
    description: What makes the numbers reproducible and the bench cannot read itself (hosts, NIC model, firmware and PSID,
      driver, OVN version, topology...); stored as given. The DUT's kernel, its command line and the OVS version are added
      from M(offload.testbed.dut_health).
    type: dict
    default: {}
  dut_health:
    description: Read the DUT's Open vSwitch health before and after every trial; a trial during which it restarted is invalid.
    type: bool
    default: true
  dut_interfaces:
    description: Network interfaces of the DUT whose driver, firmware version and PSID (C(ethtool -i)) are stored in the
      results' C(metadata.dut_system.nics).
    type: list
    elements: str
    default: []
  dut_tc_devices:
    description:
      - With O(dut_health), devices of the DUT (C(DEV) or C(NAMESPACE/DEV)) whose ingress tc filters
        (C(tc -s filter show dev DEV ingress)) M(offload.testbed.offload_facts) reads before and after every trial; the trial
        record's C(offload.tc) says how many were in hardware (C(in_hw)) and the packets they counted there and in software.
      - Empty (the default, and what the virtual lab needs) reads none.
    type: list
    elements: str
    default: []
  dut_queue_devices:
    description:
      - With O(dut_health), devices of the DUT (C(DEV) or C(NAMESPACE/DEV)) whose receive queue counters (C(ethtool -S))
        M(offload.testbed.offload_facts) reads before and after every trial; the trial record's C(rx_queues) holds each
        queue's packets and their spread (busiest queue over the mean), which the report shows next to the throughput.
      - Empty (the default) reads none. A veth (the virtual lab) counts per queue only with XDP or GRO on.
    type: list
    elements: str
    default: []
  dut_conntrack:
    description: With O(dut_health), count the DUT's conntrack entries and those offloaded (C([OFFLOAD]), C([HW_OFFLOAD])) after
      every trial (C(offload.conntrack) of the trial record).
    type: bool
    default: false
  dut_all_flows:
    description:
      - With O(dut_health), dump every datapath flow before and after every trial (C(dpctl/dump-flows -m)), not only the offloaded
        ones, so that the packets left in software are known on the kernel datapath (no PMD threads to count them).
      - Dumping every flow takes long with many flows; the userspace datapaths (netdev, DOCA) do not need it.
      - With C(false), C(dut_health) still dumps every flow where other_config:hw-offload is true on the kernel datapath;
        the record's C(tc_share) (the packets TC flower carried, in hardware or not) needs them.
    type: bool
    default: false
  retries:
    description: How many times an invalid trial is repeated before the run stops.
    type: int
    default: 1
  reconnects:
    description:
      - How many times, per trial, the bench reconnects to a generator it lost (the connection to its TRex server broke)
        and runs the interrupted trial again; after that the run stops, resumable with the same O(run_id).
      - C(0) stops the run at the first lost connection. Not part of what a resumed run must match.
    type: int
    default: 3
  reconnect_delay:
    description: Seconds to wait before the first reconnection to a lost generator; the wait doubles before each further attempt.
    type: float
    default: 2.0
  max_trials:
    description: Most trials per search.
    type: int
    default: 200
  latency_loads:
    description:
      - After each search, one latency trial at each of these fractions of the PDR's lower bound (of the highest lower
        bound when there is no goal named C(pdr)). C([]) measures no latency.
      - A latency trial sends the profile's traffic plus a TRex latency stream (C(STLFlowLatencyStats), packet group
        O(latency_pg_id) and up) of O(latency_pps) frames/s from the transmitting port, the two together at the trial's
        load, and reads the packet group's statistics (C(get_pgid_stats)) from the receiving server (O(rx_server) when
        set, and then both servers must share a clock, as the software generator's instances on one host do).
      - A generator that refuses latency streams leaves the throughput results whole; the results file says why the
        latency is missing.
    type: list
    elements: float
    default: [0.1, 0.5, 0.9]
  latency_pps:
    description: Frames/s of the latency stream; a trial sends at most a tenth of its load as latency frames.
    type: float
    default: 1000
  latency_duration:
    description: Seconds of each latency trial; default O(final_duration).
    type: float
  latency_pg_id:
    description:
      - The first TRex packet-group id of the latency streams; every latency trial of a run takes the next one, so
        counters of a receiving server that the bench never clears do not mix.
    type: int
    default: 100
  soak_duration:
    description:
      - Seconds of a soak trial after each frame size's searches (and flow count's), one trial at the median
        conditional throughput (RFC 9971) of O(soak_goal), its counters read every O(soak_interval) seconds. The results
        hold the loss over time, and whether the whole trial stayed within the goal's loss ratio. V(0) runs none.
    type: float
    default: 0
  soak_interval:
    description: Seconds between two readings of the soak trial's counters (at most O(soak_duration)).
    type: float
    default: 10
  soak_goal:
    description: The goal whose conditional throughput the soak runs at; default the goal with the largest loss ratio (the PDR).
    type: str
notes:
  - Bad arguments (unknown scenario or protocol, frame size outside 64..9216, loss ratio outside [0, 1), width outside
    (0, 0.5)...) are refused before anything is sent; so are an unreachable generator and a generator without the ports.
  - The argument spec is C(plugins/plugin_utils/bench/spec.py); a unit test keeps this documentation equal to it.
seealso:
  - module: offload.testbed.dut_health
"""

EXAMPLES = r"""
# Up to the 10GbE line rate at 64 B (max_load's default), ports [0, 1], routing, UDP
- name: NDR/PDR of UDP routing at 64, 78 and 100 byte frames
  offload.testbed.trex_bench:
    server: "{{ hostvars['gen01'].ansible_host }}"
    datapath: doca
    results_dir: "{{ playbook_dir }}/../results"
    run_id: doca-routing-udp
  register: bench

- name: TCP load balancing, one frame size, short trials, each search three times (median and spread)
  offload.testbed.trex_bench:
    scenario: lb
    lb_vip: 48.0.0.100
    protocol: tcp
    frame_sizes: [64]
    max_load: 1000000
    final_duration: 5
    repeat: 3
    results_dir: /var/tmp/results
"""

RETURN = r"""
run_id:
  description: The run id (the results file's name).
  returned: success
  type: str
  sample: doca-routing-udp
results_file:
  description: Path of the results JSON on the controller (also on failure, when it exists).
  returned: always
  type: str
  sample: /srv/results/doca-routing-udp.json
csv_file:
  description: Path of the CSV with one line per goal and frame size.
  returned: success
  type: str
  sample: /srv/results/results.csv
results_db:
  description: The results database the run was written to (C(url), its password hidden) and the error of its last write
    (C(error), null when the run is in it); null with O(results_db=false).
  returned: success
  type: dict
  sample: {url: "sqlite:////srv/results/results.db", error: null}
resumed:
  description: Whether the run continued an earlier one with the same run id.
  returned: success
  type: bool
  sample: false
searches:
  description:
    - Per frame size (with a list of O(flows), per frame size and flow count, C(profile.flows)), the profile, the number of
      repeats, the goals' bounds (frames/s, with C(generator_limited)), trials and trial seconds (over all repeats).
    - A goal's C(lower_bound) is the median over the repeats; beside it C(lower_bounds) (one per repeat), C(median), C(min),
      C(max), C(spread) and, from 4 repeats, C(q1), C(q3) and C(riqr) (module_utils/bench/stats.py). With one repeat
      C(upper_bound) and C(lower_bound_trial) are the search's own.
    - C(latency) holds the latency trials (C(points), each with C(min_us), C(avg_us), C(max_us), C(jitter_us),
      C(percentiles_us), C(histogram), C(latency_sent), C(latency_received)) or why there are none (C(skipped)).
    - C(soak) (with O(soak_duration)) holds the soak trial, with its C(goal), C(load), C(duration), C(offered), C(received),
      C(loss_ratio), C(holds) (within the goal's loss ratio), C(worst_interval_loss_ratio) and C(intervals) (each with
      C(start), C(end), C(offered), C(received), C(loss_ratio)), or why it did not run (C(skipped)); null without one.
  returned: success
  type: list
  elements: dict
  sample:
    - profile: {scenario: routing, protocol: udp, frame_size: 64}
      repeats: 1
      goals: {ndr: {loss_ratio: 0.0, lower_bound: 181230.0, upper_bound: 182000.0, lower_bound_trial: 5, generator_limited: false,
                    lower_bounds: [181230.0], median: 181230.0, min: 181230.0, max: 181230.0, spread: 0.0, riqr: null}}
      trials: 9
      trial_seconds: 46.0
"""

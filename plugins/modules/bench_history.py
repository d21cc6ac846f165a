#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: bench_history
short_description: The trends of the results database, each change flagged as a regression or a progression
version_added: 0.1.0
description:
  - Reads the results database that M(offload.testbed.trex_bench) writes (or M(offload.testbed.bench_results_db) imported into) and
    returns one series per bench (the family of the runs' bench fingerprint - DUT host, CPU model, each NIC's PCI id and PSID,
    the generator), datapath label, scenario, protocol, frame size, flow count, encapsulation and goal, over
    the runs in the order they were created; each run's values are the goal's conditional throughput (else its lower bound), one
    per repeat.
  - FD.io CSIT's C(jumpavg) (minimum description length) groups each series into stretches of one normal distribution each;
    each stretch that differs from the one before is a change, a regression (lower) or a progression (higher), given with its
    size as a fraction of the stretch before and in units of the larger of the two stretches' standard deviations, and the
    fingerprint fields that differ between the run before it and its first run (a firmware, a DOCA, a kernel argument).
  - Reads only; creates and writes nothing.
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.trends
attributes:
  check_mode:
    description: The same reading as without check mode.
  diff_mode:
    description: Nothing changes.
options:
  results_dir:
    description: The results directory whose C(results.db) (SQLite) is read when O(url) is not given.
    type: path
  goals:
    description: Only the series of these goals (for example C([pdr])); default every goal.
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: The lab's trends, PDR only
  offload.testbed.bench_history:
    results_dir: "{{ playbook_dir }}/../results"
    goals: [pdr]
  delegate_to: localhost
  register: history

- name: Say every change
  ansible.builtin.debug:
    var: history.lines
"""

RETURN = r"""
url:
  description: The database, its password hidden.
  returned: always
  type: str
series:
  description:
    - One per series, with its key (C(family), the fingerprint family's id, C(dut_host), C(datapath), C(scenario), C(protocol),
      C(frame_size), C(flows), C(encapsulation), C(goal)), C(runs) (each C(run), C(run_id), C(created), C(values), C(fingerprint)),
      C(stretches) (C(first) and C(last) run index, C(runs),
      C(avg), C(stdev), C(kind)) and C(changes).
  returned: always
  type: list
  elements: dict
changes:
  description: Every change of every series, each with the series' key, C(run_id) and C(created) of its first run, C(kind)
    (C(regression) or C(progression)), C(before), C(after), C(change) (a fraction) and C(spreads) (the change over the larger
    standard deviation of the two stretches; null when neither varies), and C(with), the bench fingerprint fields that differ
    between the run before the change and its first run.
  returned: always
  type: list
  elements: dict
lines:
  description: One line per change, then one per series without a change.
  returned: always
  type: list
  elements: str
  sample:
    - "lab-dut netdev (bench 3f2a9c1e): routing udp 64 B 100 flows, pdr: regression at run netdev-routing-udp-7 (2026-12-05T12:00:07Z),
      200000.0 -> 180000.0 (-10.0 %, 35.2 times the spread); the bench changed with it: nics.ens1f0np0.firmware"
"""

import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils.bench import history, results_db, results_source


def main():
    module = AnsibleModule(
        argument_spec={"results_dir": {"type": "path"}, "url": {"type": "str", "no_log": True}, "goals": {"type": "list", "elements": "str"}},
        supports_check_mode=True,
    )
    for name, error in results_source.missing():
        module.fail_json(msg=missing_required_lib(name), exception=error)
    error, url = results_source.where(module.params)
    if error:
        module.fail_json(msg=error)
    try:
        with results_source.opened(url) as database:
            series = results_source.trends(database, module.params["goals"])
    except results_db.ResultsDBError as failure:
        module.fail_json(msg=str(failure), exception=traceback.format_exc())
    changes = [dict(dict((name, item[name]) for name in history.KEY), **change) for item in series for change in item["changes"]]
    lines = [history.change_line(item, change) for item in series for change in item["changes"]]
    lines += [history.steady_line(item) for item in series if not item["changes"]]
    module.exit_json(changed=False, url=results_db.shown_url(url), series=series, changes=changes, lines=lines)


if __name__ == "__main__":
    main()

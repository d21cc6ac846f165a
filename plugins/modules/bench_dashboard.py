#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: bench_dashboard
short_description: The dashboard of a results database, one static HTML page
version_added: 0.1.0
description:
  - Reads the results database that M(offload.testbed.trex_bench) writes (or M(offload.testbed.bench_results_db) imported into),
    its trends as M(offload.testbed.bench_history) finds them, and writes one self-contained HTML page, readable offline, from
    a file or from an AWX job's artifacts, without a server, a script or a file beside it.
  - "On the page: every change (regressions first), a plot per series (drawn in SVG: every repeat a point, each C(jumpavg)
    stretch its average, each change marked, red for a regression and green for a progression, with its size in % and in
    units of the run-to-run spread), the latest run's goals, each series' latest run against the run before (beyond the spread
    or not) and the bench fingerprints of the latest runs, what differs from the run before highlighted."
  - The page is written only when it differs from the file at O(dest); the same database gives the same page (dated by the
    runs' own times, not by the clock).
extends_documentation_fragment:
  - offload.testbed.module
  - offload.testbed.trends
attributes:
  check_mode:
    description: Reads the database and the page at O(dest) and says whether the page would change; writes nothing.
  diff_mode:
    support: full
    description: Returns the page's summary line (its runs, series and changes) before and after.
options:
  results_dir:
    description: The results directory whose C(results.db) (SQLite) is read when O(url) is not given, and where the page goes
      when O(dest) is not given.
    type: path
  dest:
    description: The page to write; default C(dashboard.html) in O(results_dir). Its directory is created when missing.
    type: path
  title:
    description: The page's title.
    type: str
    default: Bench results
  goals:
    description: Only the series and the latest run's goals of these goals (for example C([pdr])); default every goal.
    type: list
    elements: str
seealso:
  - module: offload.testbed.bench_history
"""

EXAMPLES = r"""
- name: The lab's dashboard beside its results
  offload.testbed.bench_dashboard:
    results_dir: "{{ playbook_dir }}/../results"
  delegate_to: localhost
  register: dashboard

- name: The shared store's dashboard among an AWX job's artifacts
  offload.testbed.bench_dashboard:
    url: "{{ bench_results_db_url }}"
    dest: /runner/artifacts/dashboard.html
    title: Nightly offload benches
  delegate_to: localhost
"""

RETURN = r"""
dest:
  description: The page.
  returned: always
  type: str
  sample: /srv/results/dashboard.html
url:
  description: The database, its password hidden.
  returned: always
  type: str
series:
  description: How many series the page plots.
  returned: always
  type: int
  sample: 12
regressions:
  description: One line per regression, as M(offload.testbed.bench_history) says it.
  returned: always
  type: list
  elements: str
progressions:
  description: One line per progression.
  returned: always
  type: list
  elements: str
"""

import os
import tempfile
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils.bench import dashboard, history, results_db, results_source


def destination(params):
    """The page's path, or None when neither dest nor results_dir says it."""
    if params["dest"]:
        return params["dest"]
    return os.path.join(params["results_dir"], "dashboard.html") if params["results_dir"] else None


def current(dest):
    """The page there now, or None."""
    try:
        with open(dest, "rb") as handle:
            return handle.read()
    except (OSError, IOError):
        return None


def write(module, dest, content):
    """The page, written whole (a temporary file in its directory moved over it)."""
    directory = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(directory):
        os.makedirs(directory)
    handle, temporary = tempfile.mkstemp(prefix=".dashboard-", dir=directory)
    with os.fdopen(handle, "wb") as out:
        out.write(content)
    module.atomic_move(temporary, dest)


def lines(series, kind):
    return [history.change_line(item, change) for item in series for change in item["changes"] if change["kind"] == kind]


def main():
    module = AnsibleModule(
        argument_spec={"results_dir": {"type": "path"}, "url": {"type": "str", "no_log": True}, "dest": {"type": "path"},
                       "title": {"type": "str", "default": "Bench results"}, "goals": {"type": "list", "elements": "str"}},
        supports_check_mode=True,
    )
    for name, error in results_source.missing():
        module.fail_json(msg=missing_required_lib(name), exception=error)
    error, url = results_source.where(module.params)
    dest = destination(module.params)
    if error or not dest:
        module.fail_json(msg=error or "dest: give the page's path (or results_dir, whose dashboard.html it is then)")
    try:
        with results_source.opened(url) as database:
            data = dashboard.read(database, module.params["goals"])
    except results_db.ResultsDBError as failure:
        module.fail_json(msg=str(failure), exception=traceback.format_exc())
    content = dashboard.page(data, module.params["title"], results_db.shown_url(url)).encode("utf-8")
    before = current(dest)
    result = {"changed": before != content, "dest": dest, "url": results_db.shown_url(url), "series": len(data["series"]),
              "regressions": lines(data["series"], "regression"), "progressions": lines(data["series"], "progression")}
    if module._diff:
        result["diff"] = {"before_header": dest, "after_header": dest, "before": dashboard.summary_of(before),
                          "after": dashboard.summary_of(content)}
    if result["changed"] and not module.check_mode:
        try:
            write(module, dest, content)
        except (OSError, IOError) as failure:
            module.fail_json(msg="dest: %s not written: %s" % (dest, failure), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()

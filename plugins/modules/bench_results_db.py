#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: offload.testbed developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: bench_results_db
short_description: Import trex_bench result files into the results database (SQLite or PostgreSQL)
version_added: 0.1.0
description:
  - Reads every C(*.json) results document of M(offload.testbed.trex_bench) in O(results_dir) and writes each run, its searches,
    goals, trials (also the invalid and interrupted ones and the warm-up) and latency points into the results database, the
    tables M(offload.testbed.trex_bench) itself writes as it runs (its options C(results_db) and C(results_db_url)).
  - A run is one set of rows keyed by its run id and creation time, so the same run imported again, or resumed and imported again,
    is replaced and not doubled; a run already in the database as last written (the document's C(updated)) is left as it is, so a
    second import changes nothing.
  - The JSON files stay the primary record; files that are not results documents are listed in RV(skipped).
  - SQLite (a file, by default C(results.db) in O(results_dir)) needs nothing installed beyond SQLAlchemy; PostgreSQL is
    reached with psycopg 3 (C(postgresql+psycopg://...)). Both on the host that runs the module, usually the controller
    (delegated to C(localhost)).
extends_documentation_fragment:
  - offload.testbed.module
attributes:
  check_mode:
    description: Reads the files and the database and reports which runs would be imported; creates and writes nothing.
  diff_mode:
    description: The runs that would be written are listed in RV(imported).
options:
  results_dir:
    description: Directory with the result files of M(offload.testbed.trex_bench).
    type: path
    required: true
  url:
    description:
      - The database, as an SQLAlchemy URL. Default C(sqlite:///<results_dir>/results.db), the file M(offload.testbed.trex_bench)
        writes beside its results.
      - For PostgreSQL, C(postgresql+psycopg://user:password@host:5432/dbname); the password is never shown (RV(url) hides it).
    type: str
requirements:
  - SQLAlchemy >= 2
  - psycopg >= 3.1 (PostgreSQL only)
"""

EXAMPLES = r"""
- name: Import the lab's results into its SQLite database
  offload.testbed.bench_results_db:
    results_dir: "{{ playbook_dir }}/../results"
  delegate_to: localhost

- name: Import them into the lab's shared PostgreSQL store
  offload.testbed.bench_results_db:
    results_dir: /srv/results
    url: "postgresql+psycopg://bench:{{ vault_results_password }}@results.lab:5432/bench"
  delegate_to: localhost
"""

RETURN = r"""
url:
  description: The database, its password hidden.
  returned: always
  type: str
  sample: sqlite:////srv/results/results.db
imported:
  description: The files whose runs were written (in check mode, would be), each with C(file), C(run_id) and C(run) (its key).
  returned: always
  type: list
  elements: dict
  sample: [{file: /srv/results/netdev-routing-udp.json, run_id: netdev-routing-udp, run: "netdev-routing-udp@2026-12-05T12:13:17Z"}]
unchanged:
  description: The files whose runs are in the database as last written.
  returned: always
  type: list
  elements: dict
skipped:
  description: The C(*.json) files that are not results documents, each with C(file) and C(why).
  returned: always
  type: list
  elements: dict
counts:
  description: Rows per table in the database (C(runs), C(searches), C(goals), C(trials), C(latency_points)) of the runs of
    O(results_dir)'s files; empty in check mode.
  returned: always
  type: dict
  sample: {runs: 2, searches: 2, goals: 6, trials: 46, latency_points: 6}
"""

import os
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db


def would_create(url, check_mode):
    """An SQLite file that check mode must not create by opening it."""
    path = results_db.sqlite_file(url)
    return check_mode and path is not None and not os.path.exists(path)


def run_import(module, url):
    """Import the directory; the result's imported, unchanged, skipped and counts."""
    found, skipped = results_db.read_dir(module.params["results_dir"])
    if would_create(url, module.check_mode):
        imported, unchanged = results_db.import_plan(found, {})
        return dict(imported=imported, unchanged=unchanged, skipped=skipped, counts={})
    database = results_db.ResultsDB(url, create=not module.check_mode)
    try:
        imported, unchanged = database.import_documents(found, check_mode=module.check_mode)
        counts = {} if module.check_mode else database.counts([results_db.run_key(document) for _path, document in found])
    finally:
        database.close()
    return dict(imported=imported, unchanged=unchanged, skipped=skipped, counts=counts)


def main():
    module = AnsibleModule(
        argument_spec={"results_dir": {"type": "path", "required": True}, "url": {"type": "str", "no_log": True}},
        supports_check_mode=True,
    )
    results_dir = module.params["results_dir"]
    url = module.params["url"] or results_db.sqlite_url(results_dir)
    error = results_db.url_error("url", url)
    if error:
        module.fail_json(msg=error)
    if not os.path.isdir(results_dir):
        module.fail_json(msg="results_dir: %s is not a directory; give the directory trex_bench writes its results to" % results_dir)
    if not results_db.HAS_SQLALCHEMY:
        module.fail_json(msg=missing_required_lib("SQLAlchemy"), exception=results_db.SQLALCHEMY_ERROR)
    try:
        result = run_import(module, url)
    except results_db.ResultsDBError as error:
        module.fail_json(msg=str(error), exception=traceback.format_exc())
    module.exit_json(changed=bool(result["imported"]), url=results_db.shown_url(url), **result)


if __name__ == "__main__":
    main()

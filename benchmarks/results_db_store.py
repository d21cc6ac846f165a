# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What writing a run to the results database costs as the run grows, trial by trial, side by side in one run.

trex_bench writes the run's rows before each write of its file: once per trial. Replacing all of the run's rows at
every write costs a number of rows that grows with the trials so far, the whole run quadratic in its trials;
``ResultsDB.store`` replaces them only at a run's first and last write and between them changes only the rows that
changed (the new trial, the run's row). Both write the same documents, a run of ``--searches`` searches of
``--trials`` trials each, growing one trial per write, into SQLite files side by side; printed: the seconds of each,
their ratio, and that both databases hold the same rows.

    .venv/bin/python benchmarks/results_db_store.py --searches 12 --trials 20
"""

from __future__ import absolute_import, division, print_function

import argparse
import copy
import importlib.util
import json
import os
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
_LINK_SPEC = importlib.util.spec_from_file_location("collection_link", os.path.join(ROOT, "tools", "collection_link.py"))
_COLLECTION_LINK = importlib.util.module_from_spec(_LINK_SPEC)
_LINK_SPEC.loader.exec_module(_COLLECTION_LINK)
_COLLECTION_LINK.link_collection(ROOT)

from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db  # noqa: E402


class ReplacingDB(results_db.ResultsDB):
    """The results database as it wrote before: every write replaces all of the run's rows."""

    def store(self, document, path=None):
        with self.engine.begin() as connection:
            self._replace(connection, results_db.run_key(document), results_db.rows(document, path))


def trial(index):
    return {"index": index, "load": 1000.0 + index, "duration": 1.0, "offered": 1000 + index, "received": 1000 + index,
            "loss_ratio": 0.0, "achieved_load": 1000.0 + index, "time": "2026-12-05T16:00:00Z"}


def growing(searches, trials):
    """The run's document at each of its writes: one more trial each time, then the search's goals and status."""
    document = {"schema_version": 3, "run_id": "bench", "run_uuid": "0" * 32, "datapath": "netdev", "status": "running",
                "created": "2026-12-05T16:00:00Z", "updated": "2026-12-05T16:00:00Z", "metadata": {}, "generator": {}, "searches": []}
    for number in range(searches):
        search = {"profile": {"scenario": "routing", "protocol": "udp", "frame_size": 64 + number, "flows": 100}, "status": "running",
                  "trials": [], "repeat": 0, "result": None}
        document["searches"].append(search)
        for index in range(trials):
            search["trials"].append(trial(index))
            yield copy.deepcopy(document)
        search.update(status="complete", result={"goals": {"pdr": {"loss_ratio": 0.005, "lower_bound": 1000.0, "upper_bound": 1010.0}}})
        yield copy.deepcopy(document)
    document["status"] = "complete"
    yield document


def timed(database, documents):
    started = time.perf_counter()
    for document in documents:
        database.store(document)
    return time.perf_counter() - started


def rows_of(database):
    with database.engine.connect() as connection:
        return dict((name, sorted(json.dumps(dict(row._mapping), sort_keys=True) for row in connection.execute(database.tables[name].select())))
                    for name in results_db.TABLES)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--searches", type=int, default=12)
    parser.add_argument("--trials", type=int, default=20)
    args = parser.parse_args()
    documents = list(growing(args.searches, args.trials))
    directory = tempfile.mkdtemp(prefix="results-db-store-")
    replacing = ReplacingDB(results_db.sqlite_url(os.path.join(directory, "replacing")))
    changing = results_db.ResultsDB(results_db.sqlite_url(os.path.join(directory, "changing")))
    seconds = {"replace every write": timed(replacing, documents), "change what changed": timed(changing, documents)}
    same = rows_of(replacing) == rows_of(changing)
    print("%d writes of a run of %d searches x %d trials into SQLite" % (len(documents), args.searches, args.trials))
    for name, value in seconds.items():
        print("  %-20s %7.2f s  %6.1f ms per write" % (name, value, 1000.0 * value / len(documents)))
    print("  ratio %.1fx; the same rows in both: %s" % (seconds["replace every write"] / seconds["change what changed"], same))


if __name__ == "__main__":
    main()

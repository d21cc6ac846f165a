# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The results database a reading module reads (``bench_history``, ``bench_dashboard``): its options ``results_dir``
(the SQLite ``results.db`` there) and ``url`` (no_log), the libraries it needs, and the database opened for reading only."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import os

from ansible_collections.offload.testbed.plugins.module_utils.bench import history, results_db


def missing():
    """``(library, traceback)`` of each library the trends need that this Python cannot import."""
    needed = (("SQLAlchemy", results_db.HAS_SQLALCHEMY, results_db.SQLALCHEMY_ERROR), ("jumpavg", history.HAS_JUMPAVG, history.JUMPAVG_ERROR))
    return [(name, error) for name, present, error in needed if not present]


def where(params):
    """The database's URL, or the reason there is none to read: ``(error, url)``."""
    if params["url"]:
        return results_db.url_error("url", params["url"]), params["url"]
    if not params["results_dir"]:
        return "give results_dir (its results.db is read) or url (the results database)", None
    url = results_db.sqlite_url(params["results_dir"])
    if not os.path.exists(results_db.sqlite_file(url)):
        return ("results_dir: %s has no results database (results.db); run the bench there (trex_bench writes it) or import its "
                "files with offload.testbed.bench_results_db" % params["results_dir"]), url
    return None, url


@contextlib.contextmanager
def opened(url):
    """The database at ``url``, its tables not created; closed at the end."""
    database = results_db.ResultsDB(url, create=False)
    try:
        yield database
    finally:
        database.close()


def trends(database, goals):
    """``history.trends``, the series of ``goals`` only when given."""
    return [series for series in history.trends(database) if not goals or series["goal"] in goals]

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The results database: every run of ``trex_bench``, its searches, goals, trials and latency points as rows.

The JSON file of a run stays the primary record (``results.py``); the database is the index over many runs that
trends and dashboards read. One library, SQLAlchemy Core, speaks to both engines:

- SQLite, a file in ``results_dir`` (``results.db``), the default: nothing to install or run;
- PostgreSQL (``postgresql+psycopg://user@host/db``, psycopg 3), a lab's shared store and what an AWX job writes to.

A run's rows are derived from its whole document (``rows``, a pure function) and replaced in one transaction
(``ResultsDB.store``). The store calls it before each write of the file, so a trial that is in the file is in the
database; a resumed run, a repeated import or a second writer of the same run writes the same rows again. Two benches
write at once through SQLite's write lock (WAL, a 30 s busy timeout) or PostgreSQL's row locks; each run is its own rows.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import json
import os
import re
import time
import traceback

try:
    import sqlalchemy as sa
    HAS_SQLALCHEMY, SQLALCHEMY_ERROR = True, None
except ImportError:  # a controller without it: told when a database is asked for
    sa, HAS_SQLALCHEMY, SQLALCHEMY_ERROR = None, False, traceback.format_exc()

from ansible_collections.offload.testbed.plugins.module_utils.bench import fingerprint

DB_NAME = "results.db"
URL_RE = re.compile(r"^(sqlite|postgresql)(\+[a-z0-9]+)?://")
_PASSWORD_RE = re.compile(r"(://[^:/@]*:)[^/]*@")
# a schema step (create the tables, add a column) tried this many times while another writer makes the same
SCHEMA_ATTEMPTS = 5
TABLES = ("runs", "searches", "goals", "trials", "latency_points")
# the trial lists of a search and the kind their rows carry; the warm-up is one trial of kind "warmup"
TRIAL_KINDS = (("trials", "trial"), ("invalid_trials", "invalid"), ("interrupted_trials", "interrupted"))
# why read_dir skips a file that is no JSON (a file that is JSON but no results document is skipped too, said otherwise)
UNREADABLE = "not readable as JSON"
INSTALL_FIX = "install SQLAlchemy 2 on the controller (pip install 'sqlalchemy>=2'; for PostgreSQL also 'psycopg[binary]>=3.1')"


class ResultsDBError(Exception):
    pass


def sqlite_url(results_dir):
    """The default database: ``results.db`` in the results directory."""
    return "sqlite:///" + os.path.join(os.path.abspath(results_dir), DB_NAME)


def sqlite_file(url):
    """The file of an SQLite URL (``sqlite:///relative`` or ``sqlite:////absolute``), or None for another database."""
    match = re.match(r"^sqlite(\+[a-z0-9]+)?:///(.+)$", url)
    return match.group(2) if match else None


def shown_url(url):
    """The URL without its password, for messages and results."""
    return _PASSWORD_RE.sub(r"\1***@", url)


def url_error(name, url):
    """Why ``url`` (option ``name``) is not a database this collection writes to, or None."""
    if URL_RE.match(url or ""):
        return None
    return ("%s: %r is not a database URL this collection writes to; give sqlite:////path/to/results.db, or "
            "postgresql+psycopg://user:password@host:5432/dbname for PostgreSQL (psycopg 3)" % (name, shown_url(url or "")))


def _schema(metadata):
    """The tables, keyed by the run (``run_key``): a run's rows go and come together."""
    text, number, integer, big = sa.String(255), sa.Float, sa.Integer, sa.BigInteger

    def keyed():
        return [sa.Column("run", text, primary_key=True), sa.Column("search", integer, primary_key=True)]

    sa.Table("runs", metadata, sa.Column("run", text, primary_key=True), sa.Column("run_id", text, index=True),
             sa.Column("results_file", sa.Text), sa.Column("datapath", text), sa.Column("status", text), sa.Column("created", text), sa.Column("updated", text),
             sa.Column("schema_version", integer), sa.Column("fingerprint", text), sa.Column("resumed", integer),
             sa.Column("generator", sa.JSON), sa.Column("conditions", sa.JSON), sa.Column("error", sa.Text),
             sa.Column("bench_fingerprint", sa.JSON), sa.Column("bench_family", text, index=True))
    sa.Table("searches", metadata, *keyed(), sa.Column("repeat", integer), sa.Column("scenario", text),
             sa.Column("protocol", text), sa.Column("frame_size", text), sa.Column("flows", integer), sa.Column("encapsulation", text),
             sa.Column("status", text), sa.Column("profile", sa.JSON))
    sa.Table("goals", metadata, *keyed(), sa.Column("goal", text, primary_key=True),
             sa.Column("loss_ratio", number), sa.Column("lower_bound", number), sa.Column("upper_bound", number),
             sa.Column("conditional_throughput", number), sa.Column("generator_limited", sa.Boolean))
    sa.Table("trials", metadata, *keyed(), sa.Column("kind", text, primary_key=True),
             sa.Column("trial", integer, primary_key=True), sa.Column("load", number), sa.Column("duration", number),
             sa.Column("offered", big), sa.Column("received", big), sa.Column("loss_ratio", number), sa.Column("achieved_load", number),
             sa.Column("record", sa.JSON))
    sa.Table("latency_points", metadata, *keyed(), sa.Column("point", integer, primary_key=True),
             sa.Column("fraction", number), sa.Column("load", number), sa.Column("min_us", number), sa.Column("avg_us", number),
             sa.Column("max_us", number), sa.Column("latency_sent", big), sa.Column("latency_received", big), sa.Column("record", sa.JSON))
    return metadata


def _run_row(document, path):
    recorded = fingerprint.recorded(document)
    return {"run": run_key(document), "run_id": document["run_id"], "results_file": os.path.abspath(path) if path else None,
            "datapath": document.get("datapath"), "status": document.get("status"), "created": document.get("created"), "updated": document.get("updated"),
            "schema_version": document.get("schema_version"), "fingerprint": document.get("fingerprint"),
            "resumed": document.get("resumed", 0), "generator": document.get("generator"), "conditions": document.get("metadata"),
            "error": document.get("error"), "bench_fingerprint": recorded, "bench_family": fingerprint.family(recorded)[1]}


def _search_row(run, index, entry):
    profile = entry.get("profile") or {}
    encapsulation = profile.get("encapsulation")
    return {"run": run, "search": index, "repeat": entry.get("repeat", 0), "scenario": profile.get("scenario"),
            "protocol": profile.get("protocol"), "frame_size": str(profile.get("frame_size")), "flows": profile.get("flows"),
            "encapsulation": encapsulation.get("type") if isinstance(encapsulation, dict) else None, "status": entry.get("status"),
            "profile": profile}


def _trial_row(run, index, kind, position, trial):
    return {"run": run, "search": index, "kind": kind, "trial": trial.get("index", position), "load": trial.get("load"),
            "duration": trial.get("duration"), "offered": trial.get("offered"), "received": trial.get("received"),
            "loss_ratio": trial.get("loss_ratio"), "achieved_load": trial.get("achieved_load"), "record": trial}


def _goal_rows(run, index, entry):
    goals = ((entry.get("result") or {}).get("goals")) or {}
    return [{"run": run, "search": index, "goal": name, "loss_ratio": goal.get("loss_ratio"), "lower_bound": goal.get("lower_bound"),
             "upper_bound": goal.get("upper_bound"), "conditional_throughput": goal.get("conditional_throughput"),
             "generator_limited": goal.get("generator_limited")} for name, goal in sorted(goals.items())]


def _latency_rows(run, index, entry):
    points = (entry.get("latency") or {}).get("points") or []
    return [{"run": run, "search": index, "point": position, "fraction": point.get("fraction"), "load": point.get("load"),
             "min_us": point.get("min_us"), "avg_us": point.get("avg_us"), "max_us": point.get("max_us"),
             "latency_sent": point.get("latency_sent"), "latency_received": point.get("latency_received"), "record": point}
            for position, point in enumerate(points)]


def run_key(document):
    """A run in the database: its ``run_uuid``, drawn when the run was created and kept when it resumes; for a document
    written before runs had one, ``run_id@created``. A run id names a run in its results directory only: another run
    under the same id (another lab, another directory) is another run."""
    return document.get("run_uuid") or "%s@%s" % (document["run_id"], document.get("created") or "")


def rows(document, path=None):
    """Every row of one run's document, per table (pure: nothing is read or written)."""
    run = run_key(document)
    found = {"runs": [_run_row(document, path)], "searches": [], "goals": [], "trials": [], "latency_points": []}
    for index, entry in enumerate(document.get("searches") or []):
        found["searches"].append(_search_row(run, index, entry))
        for key, kind in TRIAL_KINDS:
            found["trials"].extend(_trial_row(run, index, kind, position, trial) for position, trial in enumerate(entry.get(key) or []))
        if entry.get("warmup"):
            found["trials"].append(_trial_row(run, index, "warmup", 0, dict(entry["warmup"], index=0)))
        found["goals"].extend(_goal_rows(run, index, entry))
        found["latency_points"].extend(_latency_rows(run, index, entry))
    return found


def is_results_document(document):
    """A run's results document (not the CSV, a report's data or another JSON file in the directory)."""
    return isinstance(document, dict) and isinstance(document.get("run_id"), str) and isinstance(document.get("searches"), list) \
        and "schema_version" in document


class ResultsDB:
    """One database (a URL), its tables created when missing."""

    def __init__(self, url, create=True):
        if not HAS_SQLALCHEMY:
            raise ResultsDBError("the results database needs SQLAlchemy, which this controller's Python cannot import (%s): %s"
                                 % (SQLALCHEMY_ERROR.strip().splitlines()[-1], INSTALL_FIX))
        self.url = url
        self.shown = shown_url(url)
        self._written = {}
        self.tables = _schema(sa.MetaData()).tables
        try:
            if create and sqlite_file(url):
                os.makedirs(os.path.dirname(os.path.abspath(sqlite_file(url))), exist_ok=True)
            self.engine = self._engine(url)
            self.created = sa.inspect(self.engine).has_table("runs")
            if create and not self.created:
                self._create()
            self.missing = self._missing_columns(create)
        except (sa.exc.SQLAlchemyError, ImportError, OSError) as error:
            raise ResultsDBError("results database %s: %s" % (self.shown, _first_line(error)))

    def _create(self):
        """The tables, each created when missing (``create_all`` checks first)."""
        self._settled(lambda: self.tables["runs"].metadata.create_all(self.engine))
        self.created = True

    def _settled(self, step):
        """Run a schema step again while another writer runs the same step at the same moment: its CREATE TABLE or
        ALTER TABLE lands between this one's check and its own, which then fails ("table runs already exists"); the
        next attempt checks again and finds the part the other writer made."""
        for attempt in range(SCHEMA_ATTEMPTS):
            try:
                return step()
            except sa.exc.SQLAlchemyError:
                if attempt == SCHEMA_ATTEMPTS - 1:
                    raise
                time.sleep(0.1 * (attempt + 1))

    def _missing_columns(self, add):
        """The runs table's columns a database written by an earlier version lacks; added (nullable, no data changed)
        when writing, else left for the readers to do without."""
        if not self.created:
            return set()
        missing = self._lacking()
        if add and missing:
            self._settled(self._add_columns)
            return set()
        return set(column.name for column in missing)

    def _lacking(self):
        present = set(column["name"] for column in sa.inspect(self.engine).get_columns("runs"))
        return [column for column in self.tables["runs"].columns if column.name not in present]

    def _add_columns(self):
        """The lacking columns and their indexes (a family's runs are looked up by ``bench_family``)."""
        with self.engine.begin() as connection:
            for column in self._lacking():
                connection.execute(sa.text("ALTER TABLE runs ADD COLUMN %s %s" % (column.name, column.type.compile(dialect=self.engine.dialect))))
            for index in self.tables["runs"].indexes:
                index.create(connection, checkfirst=True)

    @staticmethod
    def _engine(url):
        if not url.startswith("sqlite"):
            return sa.create_engine(url, pool_pre_ping=True)
        engine = sa.create_engine(url, connect_args={"timeout": 30})

        @sa.event.listens_for(engine, "connect")
        def _wal(connection, _record):
            connection.execute("PRAGMA journal_mode=WAL")

        return engine

    def store(self, document, path=None):
        """Write the run's rows as its document has them, in one transaction: the first write of a run by this object, and
        the last (a run no longer running), replace all of the run's rows; the writes between change only the rows that
        changed since this object's last write of it (a trial adds its row, not the run's every row again)."""
        found = rows(document, path)
        run = run_key(document)
        before = self._written.get(run) if document.get("status") == "running" else None
        try:
            with self.engine.begin() as connection:
                if before is None:
                    self._replace(connection, run, found)
                else:
                    for name in TABLES:
                        self._update(connection, name, before[name], found[name])
        except sa.exc.SQLAlchemyError as error:
            self._written.pop(run, None)
            raise ResultsDBError("results database %s: run %s not written: %s" % (self.shown, document["run_id"], _first_line(error)))
        self._written[run] = found
        return dict((name, len(found[name])) for name in TABLES)

    def _replace(self, connection, run, found):
        for name in reversed(TABLES):
            table = self.tables[name]
            connection.execute(table.delete().where(table.c.run == run))
        for name in TABLES:
            if found[name]:
                connection.execute(self.tables[name].insert(), found[name])

    def _update(self, connection, name, before, after):
        """The rows of one table that differ between two writes of a run: the stale deleted by their key, the new inserted."""
        table = self.tables[name]
        keys = [column.name for column in table.primary_key.columns]
        old = dict((tuple(row[key] for key in keys), row) for row in before)
        new = dict((tuple(row[key] for key in keys), row) for row in after)
        for key, row in old.items():
            if new.get(key) != row:
                connection.execute(table.delete().where(sa.and_(*[table.c[column] == value for column, value in zip(keys, key)])))
        fresh = [row for key, row in new.items() if old.get(key) != row]
        if fresh:
            connection.execute(table.insert(), fresh)

    def counts(self, runs=None):
        """Rows per table, of the given runs (``run_key``) or of all."""
        counted = {}
        with self.engine.connect() as connection:
            for name in TABLES:
                table = self.tables[name]
                query = sa.select(sa.func.count()).select_from(table)
                if runs is not None:
                    query = query.where(table.c.run.in_(list(runs)))
                counted[name] = connection.execute(query).scalar_one()
        return counted

    def updated(self):
        """When each stored run was last written (its document's ``updated``), by run."""
        runs = self.tables["runs"]
        if not self.created:
            return {}
        with self.engine.connect() as connection:
            return dict(connection.execute(sa.select(runs.c.run, runs.c.updated)).all())

    def import_documents(self, found, check_mode=False):
        """Store each ``(path, document)`` whose run is not in the database as last written; the others are left.
        Returns the imported and the unchanged files, each with its run."""
        return import_plan(found, self.updated(), None if check_mode else self.store)

    def close(self):
        self.engine.dispose()


def read_dir(results_dir):
    """The results documents of ``results_dir`` (``*.json``) as ``(path, document)``, and the files that are not one."""
    found, skipped = [], []
    for path in sorted(glob.glob(os.path.join(results_dir, "*.json"))):
        try:
            with open(path) as handle:
                document = json.load(handle)
        except (OSError, ValueError) as error:
            skipped.append({"file": path, "why": "%s: %s" % (UNREADABLE, error)})
            continue
        if is_results_document(document):
            found.append((path, document))
        else:
            skipped.append({"file": path, "why": "not a trex_bench results document (no run_id, searches or schema_version)"})
    return found, skipped


def import_plan(found, stored, store=None):
    """Which documents differ from the database (``stored``: run -> updated); each is passed to ``store`` when given."""
    imported, unchanged = [], []
    for path, document in found:
        entry = {"file": path, "run_id": document["run_id"], "run": run_key(document)}
        if stored.get(entry["run"]) == document.get("updated"):
            unchanged.append(entry)
            continue
        if store is not None:
            store(document, path)
        imported.append(entry)
    return imported, unchanged


def open_for(args, results_dir):
    """The database ``trex_bench`` writes to (its options ``results_db`` and ``results_db_url``): None when off, else
    the URL's, else SQLite in ``results_dir``."""
    if not args["results_db"]:
        return None
    return ResultsDB(args["results_db_url"] or sqlite_url(results_dir))


def outcome(database, store):
    """What the run returns about its database: where (no password) and the last write's error, if any."""
    if database is None:
        return None
    return {"url": database.shown, "error": store.database_error if store is not None else None}


def _first_line(error):
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__

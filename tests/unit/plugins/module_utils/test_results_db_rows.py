"""The rows of a results document (results_db.rows, pure), the URLs the results database takes, and which runs an import
writes. The database engines themselves are tested in tests/integration/test_results_db.py."""
import copy

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db

TRIAL = {"index": 0, "load": 1000.0, "duration": 1.0, "offered": 1000, "received": 990, "loss_ratio": 0.01, "achieved_load": 1000.0}
POINT = {"fraction": 0.5, "load": 500.0, "min_us": 10.0, "avg_us": 20.0, "max_us": 90.0, "latency_sent": 100, "latency_received": 100,
         "percentiles_us": {"99": 80.0}}
DOCUMENT = {
    "schema_version": 3, "run_id": "netdev-routing-udp", "run_uuid": "0123456789abcdef0123456789abcdef", "created": "2026-12-05T12:00:00Z",
    "updated": "2026-12-05T12:05:00Z", "status": "complete", "datapath": "netdev", "fingerprint": "1a96a7a835252b41", "resumed": 0,
    "generator": {"client": "trex"}, "metadata": {"dut_system": {"kernel": "6.1.0"}}, "error": None,
    "searches": [
        {"profile": {"scenario": "routing", "protocol": "udp", "frame_size": 64, "flows": 100,
                     "encapsulation": {"type": "vxlan", "vni": 99}},
         "repeat": 0, "status": "complete", "warmup": {"load": 100.0, "duration": 2.0, "offered": 200, "received": 200},
         "trials": [TRIAL, dict(TRIAL, index=1, load=900.0)], "invalid_trials": [dict(TRIAL, index=2)], "interrupted_trials": [],
         "result": {"goals": {"ndr": {"loss_ratio": 0.0, "lower_bound": 900.0, "upper_bound": 1000.0, "conditional_throughput": 900.0,
                                      "generator_limited": False},
                              "pdr": {"loss_ratio": 0.005, "lower_bound": 950.0, "upper_bound": 1000.0}}},
         "latency": {"points": [POINT, dict(POINT, fraction=0.9)]}},
        {"profile": {"scenario": "lb", "protocol": "tcp", "frame_size": "connections"}, "repeat": 0, "status": "running", "warmup": None,
         "trials": [], "invalid_trials": [], "interrupted_trials": [], "result": None},
    ],
}


def test_every_search_trial_goal_and_latency_point_is_a_row_keyed_by_the_run():
    found = results_db.rows(DOCUMENT, "/srv/results/netdev-routing-udp.json")
    expected = {"runs": 1, "searches": 2, "goals": 2, "trials": 4, "latency_points": 2}
    assert dict((name, len(found[name])) for name in results_db.TABLES) == expected
    assert {row["run"] for name in results_db.TABLES for row in found[name]} == {DOCUMENT["run_uuid"]}
    assert found["runs"][0]["conditions"] == DOCUMENT["metadata"] and found["runs"][0]["results_file"] == "/srv/results/netdev-routing-udp.json"
    assert [(row["kind"], row["trial"]) for row in found["trials"]] == [("trial", 0), ("trial", 1), ("invalid", 2), ("warmup", 0)]
    assert [(row["search"], row["frame_size"], row["encapsulation"]) for row in found["searches"]] == [(0, "64", "vxlan"), (1, "connections", None)]
    assert [(row["goal"], row["lower_bound"], row["generator_limited"]) for row in found["goals"]] == [("ndr", 900.0, False), ("pdr", 950.0, None)]
    assert [row["fraction"] for row in found["latency_points"]] == [0.5, 0.9] and found["latency_points"][0]["record"] == POINT


def test_a_document_written_before_runs_had_a_uuid_is_keyed_by_its_run_id_and_creation():
    older = copy.deepcopy(DOCUMENT)
    del older["run_uuid"]
    assert results_db.run_key(older) == "netdev-routing-udp@2026-12-05T12:00:00Z"


def test_an_import_writes_the_runs_that_differ_from_the_database_and_leaves_the_others():
    other = dict(DOCUMENT, run_uuid="f" * 32, updated="2026-12-05T13:00:00Z")
    written = []
    imported, unchanged = results_db.import_plan([("/a.json", DOCUMENT), ("/b.json", other)], {DOCUMENT["run_uuid"]: DOCUMENT["updated"],
                                                                                               "f" * 32: "2026-12-05T12:59:00Z"},
                                                 lambda document, path: written.append(path))
    assert [entry["file"] for entry in imported] == ["/b.json"] == written
    assert unchanged == [{"file": "/a.json", "run_id": "netdev-routing-udp", "run": DOCUMENT["run_uuid"]}]


@pytest.mark.parametrize("url,file", [("sqlite:////srv/results/results.db", "/srv/results/results.db"), ("sqlite:///results.db", "results.db"),
                                      ("postgresql+psycopg://bench@db/results", None)])
def test_the_urls_it_writes_to_and_the_sqlite_file_of_one(url, file):
    assert results_db.url_error("results_db_url", url) is None
    assert results_db.sqlite_file(url) == file


@pytest.mark.parametrize("url", ["mysql://bench:s3cret@db/results", "db.lab:5432", ""])
def test_another_url_is_refused_naming_the_option_without_the_password(url):
    message = results_db.url_error("results_db_url", url)
    assert message.startswith("results_db_url: ") and "s3cret" not in message and "postgresql+psycopg://" in message


def test_a_password_is_never_shown():
    assert results_db.shown_url("postgresql+psycopg://bench:p@ss:w@db.lab:5432/results") == "postgresql+psycopg://bench:***@db.lab:5432/results"
    assert results_db.shown_url("postgresql+psycopg://bench@db.lab/results") == "postgresql+psycopg://bench@db.lab/results"


def _another_writer_creates_first(engine, statement_start, make):
    """Before this writer's first statement starting with ``statement_start``, another writer (its own engine) does
    ``make``: what two benches starting at once do between this one's check and its CREATE or ALTER."""
    sa = results_db.sa
    done = []

    @sa.event.listens_for(engine, "before_cursor_execute")
    def _race(_connection, _cursor, statement, *_args):
        if not done and statement.strip().startswith(statement_start):
            done.append(statement)
            other = sa.create_engine(engine.url)
            with other.begin() as connection:
                make(connection)
            other.dispose()

    return done


def test_a_writer_that_loses_the_race_to_create_the_tables_creates_the_rest(tmp_path, monkeypatch):
    url = "sqlite:///%s" % (tmp_path / "results.db")
    made = []
    engine = results_db.ResultsDB._engine

    def racing_engine(url):
        created = engine(url)
        made.append(_another_writer_creates_first(created, "CREATE TABLE runs", results_db._schema(results_db.sa.MetaData()).tables["runs"].create))
        return created

    monkeypatch.setattr(results_db.ResultsDB, "_engine", staticmethod(racing_engine))
    database = results_db.ResultsDB(url)
    assert made[0] and made[0][0].strip().startswith("CREATE TABLE runs")
    database.store(DOCUMENT, "/srv/results/netdev-routing-udp.json")
    assert database.counts() == {"runs": 1, "searches": 2, "goals": 2, "trials": 4, "latency_points": 2}
    database.close()


def test_a_writer_that_loses_the_race_to_add_a_column_to_an_earlier_database_goes_on(tmp_path, monkeypatch):
    url = "sqlite:///%s" % (tmp_path / "results.db")
    results_db.ResultsDB(url).close()
    earlier = results_db.sa.create_engine(url)
    with earlier.begin() as connection:
        connection.execute(results_db.sa.text("DROP INDEX ix_runs_bench_family"))
        connection.execute(results_db.sa.text("ALTER TABLE runs DROP COLUMN bench_family"))
    earlier.dispose()
    made = []
    engine = results_db.ResultsDB._engine

    def racing_engine(url):
        created = engine(url)
        add = results_db.sa.text("ALTER TABLE runs ADD COLUMN bench_family VARCHAR")
        made.append(_another_writer_creates_first(created, "ALTER TABLE runs ADD COLUMN bench_family", lambda connection: connection.execute(add)))
        return created

    monkeypatch.setattr(results_db.ResultsDB, "_engine", staticmethod(racing_engine))
    database = results_db.ResultsDB(url)
    assert made[0] and database.missing == set()
    assert "ix_runs_bench_family" in [index["name"] for index in results_db.sa.inspect(database.engine).get_indexes("runs")]
    database.store(DOCUMENT)
    assert database.counts()["runs"] == 1
    database.close()

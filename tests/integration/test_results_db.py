"""The results database against both of its engines, the same tests for each: SQLite (a file) and a real PostgreSQL server
that the session starts for itself (tests/support/postgres.py: Debian's postgresql, a private cluster on a free loopback
port, stopped and removed at the end).

The runs are real trex_bench runs (BenchRun, its Store writing the database before each file) against a fake generator
whose device model is a cliff: every count in the database is compared with the JSON files the same run left.
"""
import json
import multiprocessing
import os
import re

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import history, results_db
from ansible_collections.offload.testbed.plugins.modules import bench_history, bench_results_db
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import results
from ansible_collections.offload.testbed.tests.support import device_models as dm
from ansible_collections.offload.testbed.tests.support.postgres import Server, binaries
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module
from ansible_collections.offload.testbed.tests.unit.plugins.plugin_utils.bench.test_bench_run import Crash, FakeGenerator, bench

ENGINES = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres():
    if binaries() is None:
        pytest.fail("PostgreSQL is needed: install Debian's postgresql (make test installs it, bindep.txt)")
    server = Server().start()
    yield server
    server.stop()


@pytest.fixture(params=ENGINES)
def url(request, tmp_path):
    """A fresh database of each engine; its tables dropped after the test."""
    if request.param == "sqlite":
        yield "sqlite:///" + str(tmp_path / "db" / results_db.DB_NAME)
        return
    server = request.getfixturevalue("postgres")
    yield server.url
    database = results_db.ResultsDB(server.url)
    database.tables["runs"].metadata.drop_all(database.engine)
    database.close()


def counted_in_files(results_dir):
    """Rows per table as the JSON files count them, read here without results_db."""
    counts = dict.fromkeys(results_db.TABLES, 0)
    for name in sorted(os.listdir(results_dir)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(results_dir, name)) as handle:
            document = json.load(handle)
        if "searches" not in document:
            continue
        counts["runs"] += 1
        for search in document["searches"]:
            counts["searches"] += 1
            counts["trials"] += sum(len(search[key]) for key in ("trials", "invalid_trials", "interrupted_trials")) + bool(search["warmup"])
            counts["goals"] += len((search["result"] or {}).get("goals", {}))
            counts["latency_points"] += len((search.get("latency") or {}).get("points", []))
    return counts


def run_bench(results_dir, url, run_id, generator=None, **overrides):
    """A whole trex_bench run on the fake generator, written to the files and to the database at ``url``."""
    database = results_db.ResultsDB(url)
    try:
        run, store = bench(results_dir, generator or FakeGenerator(), run_id=run_id, database=database, **overrides)
        run.run()
        store.finish("complete")
    finally:
        database.close()
    return store


def test_a_run_is_in_the_database_as_in_its_file_and_an_import_adds_nothing_twice(tmp_path, url):
    results = tmp_path / "results"
    results.mkdir()
    run_bench(results, url, "routing-udp", frame_sizes=[64, 1518])
    run_bench(results, url, "nat-udp", repeat=2)
    (results / "notes.json").write_text('{"what": "not a results document"}')
    database = results_db.ResultsDB(url)
    assert database.counts() == counted_in_files(str(results))
    assert database.counts()["trials"] >= 20
    found, skipped = results_db.read_dir(str(results))
    imported, unchanged = database.import_documents(found)
    assert (imported, len(unchanged)) == ([], 2)
    assert [entry["file"] for entry in skipped] == [str(results / "notes.json")]
    database.close()


def test_an_import_into_an_empty_database_counts_what_the_files_hold_and_a_second_changes_nothing(tmp_path, url):
    results = tmp_path / "results"
    results.mkdir()
    run_bench(results, "sqlite:///" + str(tmp_path / "elsewhere.db"), "routing-udp", frame_sizes=[64, 128])
    database = results_db.ResultsDB(url)
    found, _skipped = results_db.read_dir(str(results))
    imported, unchanged = database.import_documents(found)
    assert [entry["run_id"] for entry in imported] == ["routing-udp"] and unchanged == []
    assert database.counts() == counted_in_files(str(results))
    again, unchanged = database.import_documents(found)
    assert again == [] and len(unchanged) == 1
    assert database.counts() == counted_in_files(str(results))
    database.close()


def test_a_killed_run_has_every_trial_of_its_file_in_the_database_and_its_resume_completes_both(tmp_path, url):
    results = tmp_path / "results"
    results.mkdir()
    with pytest.raises(Crash):
        run_bench(results, url, "killed", generator=FakeGenerator(crash_at=5))
    database = results_db.ResultsDB(url)
    assert database.counts()["trials"] == counted_in_files(str(results))["trials"] == 4
    database.close()
    run_bench(results, url, "killed")
    database = results_db.ResultsDB(url)
    assert database.counts() == counted_in_files(str(results))
    assert database.counts()["runs"] == 1
    database.close()


def stored(database, run):
    """Every row of one run in the database, per table, each as sorted JSON (comparable whatever the engine's row order)."""
    found = {}
    with database.engine.connect() as connection:
        for name in results_db.TABLES:
            table = database.tables[name]
            found[name] = sorted(json.dumps(dict(row._mapping), sort_keys=True) for row in connection.execute(table.select().where(table.c.run == run)))
    return found


def test_a_run_written_trial_by_trial_holds_the_rows_of_its_file_row_for_row(tmp_path, url):
    """Between its first and last write a run's writes change only the rows that changed: killed at its eighth trial
    (a search finished, its goals written, the next begun), the database holds exactly the rows of the file."""
    results = tmp_path / "results"
    results.mkdir()
    database, failures = results_db.ResultsDB(url), []
    write = database.store

    def store_noting_failures(document, path=None):
        try:
            return write(document, path)
        except results_db.ResultsDBError as error:  # the store catches up at its next write: a failure would go unseen
            failures.append(str(error))
            raise

    database.store = store_noting_failures
    run, _store = bench(results, FakeGenerator(crash_at=8), run_id="written-as-it-goes", database=database, frame_sizes=[64, 1518])
    with pytest.raises(Crash):
        run.run()
    assert failures == []
    path = results / "written-as-it-goes.json"
    document = json.loads(path.read_text())
    assert document["status"] == "running" and [search["status"] for search in document["searches"]] == ["complete", "running"]
    expected = dict((name, sorted(json.dumps(row, sort_keys=True) for row in found))
                    for name, found in results_db.rows(document, str(path)).items())
    assert stored(database, results_db.run_key(document)) == expected
    database.close()


def _writer(args):
    results_dir, url, run_id = args
    run_bench(results_dir, url, run_id, frame_sizes=[64, 256, 1518])
    return run_id


def test_two_benches_writing_at_once_each_have_all_their_rows(tmp_path, url):
    results = [str(tmp_path / name) for name in ("a", "b")]
    for path in results:
        os.makedirs(path)
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        assert sorted(pool.map(_writer, [(results[0], url, "bench-a"), (results[1], url, "bench-b")])) == ["bench-a", "bench-b"]
    database = results_db.ResultsDB(url)
    both = dict((name, counted_in_files(results[0])[name] + counted_in_files(results[1])[name]) for name in results_db.TABLES)
    assert database.counts() == both and both["runs"] == 2 and both["searches"] == 6
    database.close()


def test_one_run_id_in_two_results_directories_is_two_runs(tmp_path, url):
    for name in ("monday", "tuesday"):
        (tmp_path / name).mkdir()
        run_bench(tmp_path / name, url, "netdev-routing-udp")
    database = results_db.ResultsDB(url)
    assert database.counts()["runs"] == 2
    database.close()


def test_a_database_that_fails_during_a_run_does_not_stop_it_and_the_next_write_catches_up(tmp_path, url):
    class Flaky(results_db.ResultsDB):
        failures = 3

        def store(self, document, path=None):
            if self.failures:
                self.failures -= 1
                raise results_db.ResultsDBError("results database %s: the server went away" % self.shown)
            return super(Flaky, self).store(document, path)

    results = tmp_path / "results"
    results.mkdir()
    database = Flaky(url)
    run, store = bench(results, FakeGenerator(), run_id="flaky", database=database)
    run.run()
    store.finish("complete")
    assert store.database_error is None
    assert database.counts() == counted_in_files(str(results))
    database.close()


def test_the_import_module_in_check_mode_writes_nothing_then_imports_once(tmp_path, url, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    run_bench(results, "sqlite:///" + str(tmp_path / "elsewhere.db"), "routing-udp")
    args = {"results_dir": str(results), "url": url}
    checked, failed, _calls = run_module(bench_results_db.main, dict(args, _ansible_check_mode=True), {}, monkeypatch)
    assert not failed and checked["changed"] and [entry["run_id"] for entry in checked["imported"]] == ["routing-udp"]
    assert not os.path.exists(str(tmp_path / "db")) if url.startswith("sqlite") else not results_db.ResultsDB(url, create=False).created
    imported, failed, _calls = run_module(bench_results_db.main, args, {}, monkeypatch)
    assert not failed and imported["changed"] and imported["counts"] == counted_in_files(str(results))
    assert "password" not in imported["url"]
    again, failed, _calls = run_module(bench_results_db.main, args, {}, monkeypatch)
    assert not failed and not again["changed"] and again["imported"] == [] and len(again["unchanged"]) == 1


def test_the_import_module_refuses_a_url_it_cannot_write_to_naming_it_without_its_password(tmp_path, monkeypatch):
    result, failed, _calls = run_module(bench_results_db.main, {"results_dir": str(tmp_path), "url": "mysql://bench:s3cret@db/results"}, {},
                                        monkeypatch)
    assert failed and result["msg"].startswith("url: 'mysql://bench:***@db/results' is not a database URL")
    assert "s3cret" not in result["msg"] and "postgresql+psycopg://" in result["msg"]


# A bench measured twelve times, the DUT 10 % slower from the seventh run on; each run's capacity within +-0.5 % of its
# level (the spread a real bench shows between runs), the search's own resolution on top.
STEP_AT, LEVEL = 6, 200000.0
WOBBLE = [0.004, -0.003, 0.001, -0.005, 0.002, -0.001, 0.003, -0.004, 0.0, 0.005, -0.002, 0.001]


def nic(firmware="26.41.1000", psid="MT_0000000531"):
    """What dut_health reads of the DUT: one ConnectX-6 Lx port (the reference bench's PSID) at a firmware."""
    port = {"driver": "mlx5_core", "firmware_version": firmware, "psid": psid, "pci_id": "15b3:101f", "numa_node": 0}
    return {"kernel": "6.1.0-28-amd64", "nics": {"ens1f0np0": port}}


def measured_twelve_times(tmp_path, url, monkeypatch, system_of=lambda index: None):
    clock = {"day": 0, "seconds": 0}

    def nightly():
        clock["seconds"] += 1
        return "2026-12-%02dT03:%02d:%02dZ" % (clock["day"], clock["seconds"] // 60, clock["seconds"] % 60)

    monkeypatch.setattr(results, "now", nightly)
    for index, wobble in enumerate(WOBBLE):
        clock.update(day=index + 1, seconds=0)
        level = LEVEL * (0.9 if index >= STEP_AT else 1.0)
        (tmp_path / str(index)).mkdir()
        run_bench(tmp_path / str(index), url, "nightly-%02d" % index, generator=FakeGenerator(dm.CleanCliff(level * (1 + wobble))),
                  goals=[{"name": "pdr", "loss_ratio": 0.005}], final_duration=1.0, system=system_of(index))


def test_a_planted_10_percent_step_is_flagged_at_the_step_and_nowhere_else(tmp_path, url, monkeypatch):
    measured_twelve_times(tmp_path, url, monkeypatch)
    database = results_db.ResultsDB(url)
    found = history.trends(database)
    database.close()
    assert len(found) == 1 and [run["run_id"] for run in found[0]["runs"]] == ["nightly-%02d" % index for index in range(12)]
    (change,) = found[0]["changes"]
    assert (change["kind"], change["run_id"], change["at"]) == ("regression", "nightly-%02d" % STEP_AT, STEP_AT)
    assert -0.11 < change["change"] < -0.09 and change["spreads"] > 5
    assert [(stretch["first"], stretch["last"]) for stretch in found[0]["stretches"]] == [(0, STEP_AT - 1), (STEP_AT, 11)]


def test_the_history_module_says_the_change_in_one_line(tmp_path, url, monkeypatch):
    measured_twelve_times(tmp_path, url, monkeypatch)
    result, failed, _calls = run_module(bench_history.main, {"url": url, "goals": ["pdr"]}, {}, monkeypatch)
    assert not failed and not result["changed"] and len(result["changes"]) == 1
    assert re.match(r"dut unknown \(bench [0-9a-f]{8}\): routing udp 64 B 1000 flows, pdr: regression at run nightly-06 \(2026-12-07T03:00:01Z\), ",
                    result["lines"][0]), result["lines"][0]
    assert re.search(r"\(-(9\.[5-9]|10\.[0-4]) %, [0-9.]+ times the spread\)$", result["lines"][0]), result["lines"][0]


def test_the_step_names_the_firmware_update_that_came_with_it_and_the_series_goes_on(tmp_path, url, monkeypatch):
    """A firmware update is in the bench's family (the same NIC): one series, and its change says what else changed."""
    measured_twelve_times(tmp_path, url, monkeypatch, lambda index: nic("26.43.2026" if index >= STEP_AT else "26.41.1000"))
    result, failed, _calls = run_module(bench_history.main, {"url": url, "goals": ["pdr"]}, {}, monkeypatch)
    assert not failed and len(result["series"]) == 1
    (change,) = result["changes"]
    assert change["run_id"] == "nightly-%02d" % STEP_AT and change["with"] == ["nics.ens1f0np0.firmware"]
    assert result["lines"][0].endswith("; the bench changed with it: nics.ens1f0np0.firmware")


def test_another_nic_is_another_bench_and_its_runs_another_series(tmp_path, url, monkeypatch):
    """Another card (another PSID) from the step on: two families, two series, and neither has a change."""
    measured_twelve_times(tmp_path, url, monkeypatch, lambda index: nic(psid="MT_0000000532" if index >= STEP_AT else "MT_0000000531"))
    database = results_db.ResultsDB(url)
    found = history.trends(database)
    database.close()
    assert sorted(len(series["runs"]) for series in found) == [STEP_AT, 12 - STEP_AT] and len({series["family"] for series in found}) == 2
    assert [series["changes"] for series in found] == [[], []]


def test_a_database_of_the_earlier_tables_is_read_as_it_is_and_gains_the_fingerprint_columns_when_written(tmp_path, url):
    run_bench(tmp_path, url, "before-fingerprints", system=nic())
    database = results_db.ResultsDB(url)
    with database.engine.begin() as connection:
        connection.execute(results_db.sa.text("DROP INDEX ix_runs_bench_family"))
        for column in ("bench_fingerprint", "bench_family"):
            connection.execute(results_db.sa.text("ALTER TABLE runs DROP COLUMN %s" % column))
    database.close()
    reader = results_db.ResultsDB(url, create=False)
    assert reader.missing == {"bench_fingerprint", "bench_family"}
    found = history.trends(reader)
    assert found and [series["runs"][0]["fingerprint"]["nics.ens1f0np0.psid"] for series in found] == ["MT_0000000531"] * len(found)
    reader.close()
    writer = results_db.ResultsDB(url)
    assert writer.missing == set()
    writer.store(json.loads((tmp_path / "before-fingerprints.json").read_text()))
    with writer.engine.connect() as connection:
        (row,) = connection.execute(results_db.sa.select(writer.tables["runs"].c.bench_fingerprint)).all()
    writer.close()
    assert row[0]["nics.ens1f0np0.firmware"] == "26.41.1000"

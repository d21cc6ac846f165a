# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The dashboard in a real browser: Debian's chromium, headless, loads the page that bench_dashboard wrote from a
results database of real trex_bench runs (tests/integration/test_results_db.py: twelve nightly runs, the DUT 10 % slower
from the seventh on, its kernel upgraded with it; before them three weekly runs of two repeats at 1518 B), and the test
reads the rendered page through the DevTools protocol: no console error, every series a plot with each of its points
drawn (counted against the database), one regression marked and at the step's run, the kernel's cell highlighted at the
step. The screenshot stays in tests/output/dashboard.png.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest

from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db
from ansible_collections.offload.testbed.plugins.modules import bench_dashboard
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import results
from ansible_collections.offload.testbed.tests.integration.test_results_db import STEP_AT, measured_twelve_times, run_bench
from ansible_collections.offload.testbed.tests.support.free_ports import free_port
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module

try:
    import websocket
except ImportError:  # told by the test, which fails without it
    websocket = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCREENSHOT = os.path.join(ROOT, "tests", "output", "dashboard.png")
KERNELS = ("6.1.0-28-amd64", "6.1.0-29-amd64")
WEEKLY = 3

# What the test reads of the rendered page, as JSON: each plot with its points drawn (a box of their own inside their
# SVG's), the change markers with their colour, and the fingerprint cells highlighted.
READ_PAGE = """JSON.stringify({
  plots: Array.from(document.querySelectorAll("figure.plot")).map(function (figure) {
    var svg = figure.querySelector("svg.trend"), box = svg ? svg.getBoundingClientRect() : null;
    var points = Array.from(figure.querySelectorAll("circle.point"));
    return {series: figure.dataset.series, svg: !!svg, width: box ? box.width : 0, points: points.length,
            drawn: points.filter(function (point) {
              var at = point.getBoundingClientRect();
              return at.width > 0 && at.left >= box.left && at.right <= box.right && at.top >= box.top && at.bottom <= box.bottom;
            }).length};
  }),
  changes: Array.from(document.querySelectorAll("g.change")).map(function (change) {
    var line = change.querySelector("line.marker");
    return {kind: change.getAttribute("class"), run: change.dataset.runId, at: change.dataset.at,
            height: line.getBoundingClientRect().height, stroke: getComputedStyle(line).stroke,
            title: change.querySelector("title").textContent};
  }),
  rows: Array.from(document.querySelectorAll("#changes tbody tr")).map(function (row) { return row.className; }),
  differs: Array.from(document.querySelectorAll("#fingerprints td.differs")).map(function (cell) {
    var row = cell.parentElement, column = Array.prototype.indexOf.call(row.children, cell);
    return {field: row.children[0].textContent,
            run: document.querySelectorAll("#fingerprints thead th")[column].textContent, title: cell.title};
  })
})"""


def weekly_runs(tmp_path, monkeypatch):
    """Three runs before the nightly ones, a week apart, each two repeats at 1518 B of both goals: two series without a change."""
    clock = {"day": 0, "seconds": 0}

    def weekly():
        clock["seconds"] += 1
        return "2026-11-%02dT12:%02d:%02dZ" % (clock["day"], clock["seconds"] // 60, clock["seconds"] % 60)

    monkeypatch.setattr(results, "now", weekly)
    for index in range(WEEKLY):
        clock.update(day=1 + 7 * index, seconds=0)
        (tmp_path / ("weekly-%d" % index)).mkdir()
        run_bench(tmp_path / ("weekly-%d" % index), "sqlite:///" + str(tmp_path / "results" / results_db.DB_NAME), "weekly-%d" % index,
                  frame_sizes=[1518], repeat=2, goals=[{"name": "ndr", "loss_ratio": 0.0}, {"name": "pdr", "loss_ratio": 0.005}])


def kernel_upgraded_at_the_step(url):
    """Each nightly run's DUT kernel, the newer one from the step on: in the run's conditions (what the dashboard reads
    without a bench fingerprint) and in its bench fingerprint when the database has one."""
    database = results_db.ResultsDB(url)
    runs = database.tables["runs"]
    fingerprinted = getattr(runs.c, "bench_fingerprint", None) is not None and "bench_fingerprint" not in getattr(database, "missing", ())
    with database.engine.begin() as connection:
        found = connection.execute(results_db.sa.select(runs).where(runs.c.run_id.like("nightly-%")).order_by(runs.c.created)).all()
        for index, row in enumerate(found):
            kernel = KERNELS[index >= STEP_AT]
            values = {"conditions": dict(row.conditions or {}, dut_system=dict((row.conditions or {}).get("dut_system") or {}, kernel=kernel))}
            if fingerprinted:
                values["bench_fingerprint"] = dict(row.bench_fingerprint or {}, kernel=kernel)
            connection.execute(runs.update().where(runs.c.run == row.run).values(**values))
    database.close()


def counted(url):
    """What the database holds, read here with SQL: the series (distinct traffic and goal) and the goals with a value."""
    database = results_db.ResultsDB(url, create=False)
    with database.engine.connect() as connection:
        series = connection.execute(results_db.sa.text(
            "SELECT COUNT(*) FROM (SELECT DISTINCT r.datapath, s.scenario, s.protocol, s.frame_size, s.flows, s.encapsulation, g.goal "
            "FROM runs r JOIN searches s ON s.run = r.run JOIN goals g ON g.run = s.run AND g.search = s.search) AS k")).scalar_one()
        points = connection.execute(results_db.sa.text(
            "SELECT COUNT(*) FROM goals WHERE conditional_throughput IS NOT NULL OR lower_bound IS NOT NULL")).scalar_one()
    database.close()
    return series, points


@pytest.fixture
def browser(tmp_path):
    """Headless chromium with its DevTools on a free loopback port; yields a websocket to its page, kills it at the end."""
    binary = shutil.which("chromium")
    if binary is None or websocket is None:
        pytest.fail("chromium and websocket-client are needed: install Debian's chromium (make test installs it, bindep.txt) and "
                    "requirements-test.txt")
    port, profile = free_port(), tempfile.mkdtemp(prefix="dashboard-chromium-", dir=str(tmp_path))
    log = open(str(tmp_path / "chromium.log"), "wb")
    process = subprocess.Popen([binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                                "--remote-debugging-port=%d" % port, "--user-data-dir=" + profile, "--window-size=1400,1000", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=log)
    try:
        connection = websocket.create_connection(page_socket(port, process), timeout=30, suppress_origin=True)
        yield DevTools(connection)
        connection.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def page_socket(port, process, timeout=30.0):
    """The DevTools websocket of chromium's first page, once it answers."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert process.poll() is None, "chromium exited with %s (see chromium.log in the test's tmp_path)" % process.returncode
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=2) as answer:
                targets = [target for target in json.load(answer) if target.get("type") == "page"]
            if targets:
                return targets[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError("chromium's DevTools did not answer on port %d in %.0f s" % (port, timeout))


class DevTools:
    """Commands to one page, and every event seen while waiting for their answers."""

    def __init__(self, connection):
        self.connection, self.events, self.sent = connection, [], 0

    def call(self, method, **params):
        self.sent += 1
        self.connection.send(json.dumps({"id": self.sent, "method": method, "params": params}))
        while True:
            message = json.loads(self.connection.recv())
            if message.get("id") == self.sent:
                assert "error" not in message, "%s: %s" % (method, message["error"])
                return message["result"]
            self.events.append(message)

    def wait_for(self, method, timeout=30.0):
        deadline = time.time() + timeout
        while not any(event.get("method") == method for event in self.events):
            assert time.time() < deadline, "no %s in %.0f s" % (method, timeout)
            self.events.append(json.loads(self.connection.recv()))

    def errors(self):
        """The console's errors, the log's and the page's uncaught exceptions."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(params)
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(params["entry"])
            elif method == "Runtime.exceptionThrown":
                found.append(params["exceptionDetails"])
        return found


def rendered(devtools, path):
    """Load the page from its file, read it (``READ_PAGE``) and keep a screenshot of it all."""
    for domain in ("Page", "Runtime", "Log"):
        devtools.call(domain + ".enable")
    devtools.call("Page.navigate", url="file://" + path)
    devtools.wait_for("Page.loadEventFired")
    found = json.loads(devtools.call("Runtime.evaluate", expression=READ_PAGE, returnByValue=True)["result"]["value"])
    size = devtools.call("Page.getLayoutMetrics")["cssContentSize"]
    shot = devtools.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
    os.makedirs(os.path.dirname(SCREENSHOT), exist_ok=True)
    with open(SCREENSHOT, "wb") as handle:
        handle.write(base64.b64decode(shot["data"]))
    return found


def test_the_dashboard_in_a_browser_has_every_plot_drawn_and_the_regression_marked_at_the_step(tmp_path, monkeypatch, browser):
    store = tmp_path / "results"
    url = "sqlite:///" + str(store / results_db.DB_NAME)
    weekly_runs(tmp_path, monkeypatch)
    measured_twelve_times(tmp_path, url, monkeypatch)
    kernel_upgraded_at_the_step(url)
    args = {"results_dir": str(store), "title": "Nightly <benches> & co"}
    checked, failed, _calls = run_module(bench_dashboard.main, dict(args, _ansible_check_mode=True), {}, monkeypatch)
    assert not failed and checked["changed"] and not os.path.exists(checked["dest"]), checked
    written, failed, _calls = run_module(bench_dashboard.main, dict(args, _ansible_diff=True), {}, monkeypatch)
    assert not failed and written["changed"] and written["dest"] == str(store / "dashboard.html")
    assert len(written["regressions"]) == 1 and written["progressions"] == [] and "nightly-%02d" % STEP_AT in written["regressions"][0]
    summary = "%d runs, %d series, 1 regression, 0 progressions" % (WEEKLY + 12, written["series"])
    assert written["diff"]["before"] == "" and written["diff"]["after"].startswith(summary)
    again, failed, _calls = run_module(bench_dashboard.main, args, {}, monkeypatch)
    assert not failed and not again["changed"]

    series, points = counted(url)
    found = rendered(browser, written["dest"])
    assert browser.errors() == []
    assert written["series"] == series == len(found["plots"]) == 3
    assert all(plot["svg"] and plot["width"] > 0 and plot["drawn"] == plot["points"] for plot in found["plots"]), found["plots"]
    assert sum(plot["points"] for plot in found["plots"]) == points == 12 + WEEKLY * 2 * 2
    (change,) = found["changes"]
    assert (change["kind"], change["run"], change["at"]) == ("change regression", "nightly-%02d" % STEP_AT, str(STEP_AT))
    assert change["height"] > 100 and change["stroke"] == "rgb(198, 40, 40)" and "times the spread" in change["title"]
    assert found["rows"] == ["regression"]
    kernel = [cell for cell in found["differs"] if cell["field"] == "kernel"]
    assert [cell["run"].split(" ")[0] for cell in kernel] == ["nightly-%02d" % STEP_AT] and KERNELS[0] in kernel[0]["title"]
    assert os.path.getsize(SCREENSHOT) > 10000

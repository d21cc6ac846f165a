# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The dashboard's page from data as ``dashboard.read`` returns it, without a database: escaping, the same bytes twice,
the change markers, the comparisons and the fingerprints' highlight."""
import re

from ansible_collections.offload.testbed.plugins.module_utils.bench import dashboard
from ansible_collections.offload.testbed.plugins.module_utils.bench import dashboard_svg as svg

EVIL = '<script>alert("x")</script>'


def a_series(values, changes=(), goal="pdr", run_id="nightly-%02d"):
    """A series of one value per run, one stretch before and one after the first change's run."""
    runs = [{"run": "uuid-%d" % index, "run_id": run_id % index, "created": "2026-12-%02dT03:00:00Z" % (index + 1), "values": [value]}
            for index, value in enumerate(values)]
    cuts = [0] + [change["at"] for change in changes] + [len(values)]
    stretches = []
    for first, end in zip(cuts, cuts[1:]):
        part = values[first:end]
        average = sum(part) / len(part)
        stretches.append({"first": first, "last": end - 1, "runs": len(part), "avg": average, "kind": "normal",
                          "stdev": (sum((value - average) ** 2 for value in part) / len(part)) ** 0.5})
    return {"dut_host": "lab-dut", "datapath": "netdev", "family": "3f2a9c1e", "scenario": "routing", "protocol": "udp", "frame_size": "64",
            "flows": 100, "encapsulation": None, "goal": goal, "runs": runs, "stretches": stretches, "changes": list(changes)}


def a_change(kind, at, before, after, run_id):
    return {"run": "uuid-%d" % at, "run_id": run_id, "created": "2026-12-%02dT03:00:00Z" % (at + 1), "at": at, "kind": kind,
            "before": before, "after": after, "change": (after - before) / before, "spreads": 30.0}


STEPPED = [200.0e3, 201.0e3, 199.0e3, 200.5e3, 180.0e3, 180.6e3, 180.2e3]


def a_run(index, kernel, run_id=None, updated=None):
    return {"run": "uuid-%d" % index, "run_id": run_id or "nightly-%02d" % index, "datapath": "netdev", "status": "complete",
            "created": "2026-12-%02dT03:00:00Z" % (index + 1), "updated": updated or "2026-12-%02dT03:20:00Z" % (index + 1), "dut_host": "lab-dut",
            "fingerprint": {"kernel": kernel, "nics.ens1f0np0.firmware": "26.41.1000"}}


def data(run_id="nightly-%02d"):
    regression = a_change("regression", 4, 200125.0, 180266.7, run_id % 4)
    series = [a_series(STEPPED, [regression], run_id=run_id), a_series([100.0e3] * 7, goal="ndr", run_id=run_id)]
    runs = [a_run(index, "6.1.0-28-amd64" if index < 4 else "6.1.0-29-amd64", run_id % index) for index in range(len(STEPPED))]
    latest = [{"search": 0, "repeat": 0, "scenario": "routing", "protocol": "udp", "frame_size": "64", "flows": 100, "encapsulation": None,
               "goal": "pdr", "loss_ratio": 0.005, "lower_bound": 179.5e3, "upper_bound": 180.4e3, "conditional_throughput": None,
               "generator_limited": False}]
    return {"series": series, "runs": runs, "latest": latest}


def test_the_same_data_gives_the_same_bytes_and_no_clock():
    first, second = [dashboard.page(data(), "Nightly", "sqlite:////srv/results/results.db") for _time in range(2)]
    assert first == second
    assert "the latest write 2026-12-07T03:20:00Z" in first
    assert "<script" not in first and "http://" not in first.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_every_text_is_escaped():
    found = dashboard.page(data(run_id=EVIL.replace("x", "%02d")), EVIL, "sqlite:////srv/<results>/results.db")
    assert "<script>" not in found and "&lt;script&gt;alert(&quot;" in found
    assert "<title>&lt;script&gt;" in found and "sqlite:////srv/&lt;results&gt;/results.db" in found


def test_the_regression_is_marked_once_at_its_run_with_its_size_and_spread():
    found = dashboard.page(data(), "Nightly", "store")
    markers = re.findall(r'<g class="change ([a-z]+)" data-run-id="([^"]+)" data-at="(\d+)"><title>([^<]+)</title>', found)
    title = "regression at run nightly-04 (2026-12-05T03:00:00Z): 200.1 kpps -&gt; 180.3 kpps, -9.9 %, 30.0 times the spread"
    assert markers == [("regression", "nightly-04", "4", title)]
    assert found.count('<circle class="point"') == 2 * len(STEPPED) and found.count('<line class="stretch"') == 3
    assert re.findall(r'<tr class="(\w+)"><td class="kind">', found) == ["regression"]


def test_regressions_come_first_the_largest_first():
    small, large = a_change("regression", 2, 100.0, 95.0, "b"), a_change("regression", 4, 100.0, 80.0, "c")
    gain = a_change("progression", 1, 100.0, 120.0, "a")
    series = [a_series([100.0, 120.0, 95.0, 95.0, 80.0, 80.0], [gain, small, large])]
    assert [change["run_id"] for _index, _item, change in dashboard.all_changes(series)] == ["c", "b", "a"]


def test_the_latest_run_against_the_run_before():
    stepped, flat = data()["series"]
    assert dashboard.comparison(flat) == {"before_run": "nightly-05", "run": "nightly-06", "before": 100.0e3, "after": 100.0e3, "change": 0.0,
                                          "spreads": None, "beyond": False}
    found = dashboard.comparison(stepped)
    assert (found["before"], found["after"], found["beyond"]) == (180.6e3, 180.2e3, False) and 1.0 < found["spreads"] < 2.0
    stepped["runs"][-1]["values"] = [150.0e3]
    assert dashboard.comparison(stepped)["beyond"] is True
    assert dashboard.comparison(dict(stepped, runs=stepped["runs"][:1])) is None


def test_the_fingerprint_cell_that_differs_from_the_run_before_is_highlighted():
    runs = [a_run(index, "6.1.0-28-amd64" if index < 4 else "6.1.0-29-amd64") for index in range(10)]
    columns = dashboard.fingerprint_columns(runs)
    assert [run["run_id"] for run, _before, _differs in columns] == ["nightly-%02d" % index for index in range(2, 10)]
    assert [sorted(differs) for _run, _before, differs in columns] == [[], [], ["kernel"], [], [], [], [], []]
    found = dashboard.fingerprints_section(runs)
    assert re.findall(r'<td class="value differs" title="([^"]+)">([^<]+)</td>', found) == [("the run before: 6.1.0-28-amd64", "6.1.0-29-amd64")]
    assert found.count("<tr>") == 3 and "<th>nightly-09 (2026-12-10T03:00:00Z)</th>" in found


def test_a_run_without_a_fingerprint_highlights_nothing():
    runs = [dict(a_run(0, "6.1.0-28-amd64"), fingerprint={}), a_run(1, "6.1.0-29-amd64")]
    assert [differs for _run, _before, differs in dashboard.fingerprint_columns(runs)] == [set(), set()]
    assert 'class="value absent"' in dashboard.fingerprints_section(runs)


def test_an_empty_store_is_a_page_that_says_so():
    found = dashboard.page({"series": [], "runs": [], "latest": []}, "Nothing yet", "store")
    assert "0 runs, 0 series, 0 regressions, 0 progressions; the latest write -;" in found
    assert "No run in this store yet." in found and "No change in any series" in found and "<svg" not in found


def test_the_summary_line_of_a_page_for_a_diff():
    page = dashboard.page(data(), "Nightly", "store <a>").encode("utf-8")
    assert dashboard.summary_of(page) == "7 runs, 2 series, 1 regression, 0 progressions; the latest write 2026-12-07T03:20:00Z; store store <a>\n"
    assert dashboard.summary_of(None) == ""


def test_the_plot_scale_has_round_ticks_and_a_flat_series_a_window():
    assert svg.ticks((179.0e3, 202.0e3)) == [180.0e3, 185.0e3, 190.0e3, 195.0e3, 200.0e3]
    low, high = svg.value_range(a_series([100.0e3] * 3))
    assert low < 100.0e3 < high

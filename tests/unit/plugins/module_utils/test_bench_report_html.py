"""bench_report on results files of the reference bench: the rendered HTML parsed back, the Markdown with the same tables."""
import json
import re
from html.parser import HTMLParser

import pytest

from ansible_collections.offload.testbed.plugins.modules import bench_report as report_module
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils.test_bench_report_conditions import CMDLINE, lab_document
from ansible_collections.offload.testbed.tests.unit.plugins.modules.modtest import run_module


class Tables(HTMLParser):
    """Every <table> of a page: its caption and its rows of cell texts (a <details> cell: its full text, the <summary> left out)."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell, self._skip, self._in_caption = [], None, 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"caption": "", "rows": [], "classes": []})
        elif tag == "caption":
            self._in_caption = True
        elif tag == "tr":
            self.tables[-1]["rows"].append([])
            self.tables[-1]["classes"].append([])
        elif tag in ("td", "th"):
            self._cell = ""
            self.tables[-1]["classes"][-1].append(dict(attrs).get("class") or "")
        elif tag == "summary":
            self._skip += 1

    def handle_endtag(self, tag):
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th"):
            self.tables[-1]["rows"][-1].append(self._cell)
            self._cell = None
        elif tag == "summary":
            self._skip -= 1

    def handle_data(self, data):
        if self._in_caption:
            self.tables[-1]["caption"] += data
        elif self._cell is not None and not self._skip:
            self._cell += data


def markdown_headers(text):
    """The header line of every Markdown table, as a list of cells."""
    lines = text.splitlines()
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line, following in zip(lines, lines[1:])
            if line.startswith("| ") and re.match(r"^\|(-+:?\|)+$", following)]


@pytest.fixture
def reference_bench(tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    system = lab_document("system", line_rate=None, nics=False)
    for found in system["searches"][0]["result"]["goals"].values():
        found.update(lower_bound=found["lower_bound"] / 16.0, upper_bound=found["upper_bound"] / 16.0)
    for document in (lab_document("doca"), system):
        (results / ("%s.json" % document["run_id"])).write_text(json.dumps(document))
    return results


def test_the_html_report_opens_with_the_conditions_of_the_input(reference_bench, monkeypatch):
    pytest.importorskip("matplotlib")
    result, failed, _calls = run_module(report_module.main, {"results_dir": str(reference_bench), "compare": ["doca", "system"]}, {}, monkeypatch)
    assert not failed, result.get("msg")
    page = Tables()
    page.feed((reference_bench / "report" / "report.html").read_text())
    first = page.tables[0]
    assert first["caption"] == "Conditions" and first["rows"][0] == ["condition", "doca", "system"]
    rows = {row[0]: row[1:] for row in first["rows"][1:]}
    assert rows["kernel"] == ["5.14.0-611.47.1.sl9_7^2.x86_64"] * 2 and rows["kernel command line"] == [CMDLINE] * 2
    assert rows["Open vSwitch"] == ["ovs-vswitchd (Open vSwitch) 3.3.8"] * 2 and rows["OVN"] == ["ovn-controller 24.03.8"] * 2
    assert rows["Open_vSwitch other_config"] == ["doca-init=true, hw-offload=true"] * 2
    assert rows["NIC: driver, firmware, PSID, bus"] == ["ens3f0np0: mlx5_core 24.10-1.1.4, firmware 26.47.1026, PSID LNV0000000033, 0000:32:00.0",
                                                        "not recorded: set bench_dut_interfaces"]
    assert rows["generator"] == ["trex_stl_lib v3.06 (STL), ports 0, 1"] * 2
    assert rows["trial durations"] == ["initial 1 s, final 10 s, warm-up 2 s at 3.72 Mpps"] * 2
    assert rows["line rate"] == ["25 Gb/s per port", "not recorded: set bench_line_rate_gbps"]
    assert rows["runs"] == ["doca-routing-udp-20261201T100000", "system-routing-udp-20261201T100000"]
    captions = [table["caption"] for table in page.tables]
    assert captions == ["Conditions", "Speedup of doca over system per scenario and protocol (pdr, 64 B)", "Speedup of doca over system (pdr)",
                        "Bounds per datapath, scenario, protocol and frame size", "Runs"]
    # the reference bench's form: 12 Mpps / 0.75 Mpps = 16.0x
    assert page.tables[1]["rows"] == [["scenario", "udp"], ["routing", "16.0x"]]
    # 12 Mpps of 64 B: 12e6 x 84 B x 8 = 8.064 Gb/s, of 25 Gb/s 32.3 %; 0.75 Mpps: 0.504 Gb/s
    speedup = page.tables[2]["rows"]
    assert speedup[1][:8] == ["routing", "udp", "64 B", "12.00 Mpps", "8.06 Gbps", "750.0 kpps", "0.504 Gbps", "16.0x"]
    bounds = {(row[0], row[4]): row for row in page.tables[3]["rows"][1:]}
    assert bounds[("doca", "pdr")][6:10] == ["12.00 Mpps", "8.06 Gbps", "32.3 %", "12.06 Mpps"]
    assert bounds[("system", "pdr")][6:9] == ["750.0 kpps", "0.504 Gbps", "-"]
    # numbers right aligned
    assert page.tables[3]["classes"][1][6] == "num" and page.tables[3]["classes"][1][0] == ""
    # the Markdown has the same tables, in the same order, with the same headers
    markdown = (reference_bench / "report" / "report.md").read_text()
    assert markdown_headers(markdown) == [table["rows"][0] for table in page.tables]
    assert "| kernel command line | `%s` | `%s` |" % (CMDLINE, CMDLINE) in markdown
    assert "![loss against offered load: doca-routing-udp-20261201T100000, 64 B](loss-doca-routing-udp-20261201T100000-64.png)" in markdown

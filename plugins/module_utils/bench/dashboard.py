# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The dashboard of a results store: one self-contained HTML page, no server, no script, no file beside it.

``read`` takes what the page shows from the database (the trends of ``history.trends``, the runs with their bench
fingerprints, the latest run's goals); ``page`` turns that into the HTML, a pure function: the changes (regressions
first), a plot per series (``dashboard_svg``), the latest run, each series' latest run against the run before, and the
fingerprints of the latest runs with what differs from the run before highlighted. Every text is escaped, and the page
is dated by the runs' own ``updated`` (no clock), so the same database gives the same bytes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html
import re

from ansible_collections.offload.testbed.plugins.module_utils.bench import fingerprint, history, results_db, results_source
from ansible_collections.offload.testbed.plugins.module_utils.bench import dashboard_svg as svg

# the runs the fingerprints table shows, the latest
FINGERPRINT_RUNS = 8
ABSENT = "-"
# a series' latest run is beyond the spread when it differs from the run before by more than this many spreads (two runs
# of one normal distribution differ by more than twice its deviation about one time in six)
BEYOND = 2.0

LEGEND = ("A plot per series, its runs in the order created: a point per repeat (the goal's conditional throughput, else its lower "
          "bound), a black segment per stretch at its average (jumpavg), a dashed line where a stretch starts that differs from the one "
          "before: red a regression, green a progression. Hover over them for their runs and values.")

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222;line-height:1.35}
h1{font-size:1.6em;border-bottom:2px solid #3b6ea5;padding-bottom:.2em}
h2{font-size:1.2em;color:#1d3b5c;margin-top:1.6em}
nav a{margin-right:1em}
p.summary,p.note{font-size:.88em;color:#444}
div.table{overflow-x:auto}
table{border-collapse:collapse;margin:.6em 0;font-size:.8em}
th,td{border:1px solid #c5cbd3;padding:1px 6px;vertical-align:top}
th{background:#e8eef5;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.regression td.kind,td.regression{color:#b71c1c;font-weight:bold}
tr.progression td.kind,td.progression{color:#1b5e20;font-weight:bold}
td.differs{background:#ffe0b2}
td.absent{color:#999}
td.value{max-width:28em;word-break:break-all}
figure.plot{margin:1.2em 0}
figcaption{font-size:.9em;color:#1d3b5c;font-weight:bold}
svg.trend{background:#fff;border:1px solid #dde;max-width:100%;height:auto}
svg.trend text{font-size:11px;fill:#444}
svg.trend line.grid{stroke:#e3e7ec}
svg.trend line.axis{stroke:#888}
svg.trend circle.point{fill:#3b6ea5;fill-opacity:.75}
svg.trend line.stretch{stroke:#222;stroke-width:2}
svg.trend g.change line.marker{stroke-width:2;stroke-dasharray:5 3}
svg.trend g.regression line.marker{stroke:#c62828}
svg.trend g.regression text.marker{fill:#c62828;font-weight:bold}
svg.trend g.progression line.marker{stroke:#2e7d32}
svg.trend g.progression text.marker{fill:#2e7d32;font-weight:bold}
""".strip()


def runs_of(database):
    """Every run in the order created, each with its DUT host and fingerprint (a database without the column, from before
    runs had one, is read without it)."""
    sa, runs = results_db.sa, database.tables["runs"]
    columns = [runs.c.run, runs.c.run_id, runs.c.datapath, runs.c.status, runs.c.created, runs.c.updated, runs.c.conditions,
               runs.c.generator, history.fingerprint_column(database)]
    with database.engine.connect() as connection:
        found = [dict(row._mapping) for row in connection.execute(sa.select(*columns).order_by(runs.c.created, runs.c.run))]
    for run in found:
        conditions = run.pop("conditions") or {}
        run["fingerprint"] = fingerprint.of_columns(run.pop("bench_fingerprint"), conditions, run.pop("generator"), run["datapath"])
        run["dut_host"] = conditions.get("dut_host") or conditions.get("inventory_hostname")
    return found


def goals_of(database, run, goals=None):
    """The goals of one run's searches: the search's traffic and the goal's bounds, in search order."""
    sa, tables = results_db.sa, database.tables
    searches, rows = tables["searches"], tables["goals"]
    query = (sa.select(searches.c.search, searches.c.repeat, searches.c.scenario, searches.c.protocol, searches.c.frame_size, searches.c.flows,
                       searches.c.encapsulation, rows.c.goal, rows.c.loss_ratio, rows.c.lower_bound, rows.c.upper_bound,
                       rows.c.conditional_throughput, rows.c.generator_limited)
             .select_from(searches.join(rows, sa.and_(rows.c.run == searches.c.run, rows.c.search == searches.c.search)))
             .where(searches.c.run == run).order_by(searches.c.search, rows.c.goal))
    with database.engine.connect() as connection:
        found = [dict(row._mapping) for row in connection.execute(query)]
    return [goal for goal in found if not goals or goal["goal"] in goals]


def read(database, goals=None):
    """What the page shows: ``series`` (``history.trends``, of ``goals`` only when given), ``runs`` and ``latest`` (the
    latest run's goals)."""
    runs = runs_of(database)
    return {"series": results_source.trends(database, goals), "runs": runs, "latest": goals_of(database, runs[-1]["run"], goals) if runs else []}


def several(count, word, words=None):
    """``1 run``, ``2 runs``."""
    return "%d %s" % (count, word if count == 1 else words or word + "s")


def esc(value):
    """Any value as escaped text, ``-`` for None."""
    return html.escape(ABSENT if value is None else str(value))


def table(header, rows):
    """A table: ``header`` texts, ``rows`` of ``(row class, cells)`` whose cells are already HTML (``td``)."""
    out = ['<div class="table"><table>', "<thead><tr>%s</tr></thead>" % "".join("<th>%s</th>" % esc(name) for name in header), "<tbody>"]
    out += ["<tr%s>%s</tr>" % (' class="%s"' % esc(kind) if kind else "", "".join(cells)) for kind, cells in rows]
    out.append("</tbody></table></div>")
    return "\n".join(out)


def td(value, kind=None, title=None):
    """One cell, escaped, with its class and title when given."""
    return "<td%s%s>%s</td>" % (' class="%s"' % esc(kind) if kind else "", ' title="%s"' % esc(title) if title else "", esc(value))


def anchor(index):
    return "series-%d" % (index + 1)


def all_changes(series):
    """``(series index, series, change)`` of every change: the regressions first, the largest first, then the progressions."""
    found = [(index, item, change) for index, item in enumerate(series) for change in item["changes"]]

    def order(entry):
        index, item, change = entry
        size = change["change"] or 0.0
        return (change["kind"] != "regression", size if change["kind"] == "regression" else -size, history.series_name(item), change["run_id"])

    return sorted(found, key=order)


def changes_section(series):
    """The table of every change, each linked to its plot."""
    found = all_changes(series)
    if not found:
        return '<p class="note">No change in any series: each is one stretch (jumpavg).</p>'
    rows = []
    for index, item, change in found:
        spreads = "%.1f" % change["spreads"] if change["spreads"] is not None else ABSENT
        rows.append((change["kind"], [td(change["kind"], "kind"), '<td><a href="#%s">%s</a></td>' % (anchor(index), esc(history.series_name(item))),
                                      td(change["run_id"]), td(change["created"]), td(svg.rate(item, change["before"]), "num"),
                                      td(svg.rate(item, change["after"]), "num"), td(svg.percent(change["change"]), "num"), td(spreads, "num"),
                                      td(", ".join(change.get("with") or []) or ABSENT)]))
    return table(["change", "series", "at run", "created", "before", "after", "change", "times the spread", "the bench changed with it"], rows)


def plots_section(series):
    """A figure per series: its name, its plot and what it is."""
    if not series:
        return '<p class="note">No series: the store has no run with a goal yet.</p>'
    out = []
    for index, item in enumerate(series):
        name = history.series_name(item)
        kinds = sorted(set(change["kind"] for change in item["changes"]))
        out.append('<figure class="plot" id="%s" data-series="%s" data-runs="%d" data-changes="%s">' % (
            anchor(index), esc(name), len(item["runs"]), esc(" ".join(kinds))))
        counts = "%s, %s" % (several(len(item["runs"]), "run"), several(len(item["stretches"]), "stretch", "stretches"))
        out.append("<figcaption>%s: %s</figcaption>" % (esc(name), esc(counts)))
        out.append(svg.plot(item, name))
        out.append("</figure>")
    return "\n".join(out)


def latest_section(runs, latest):
    """The latest run: what it is, and each goal of each of its searches."""
    if not runs:
        return '<p class="note">No run in this store yet.</p>'
    run = runs[-1]
    facts = "run %s, datapath %s, DUT %s, %s, created %s, updated %s" % (
        run["run_id"], run["datapath"], run["dut_host"] or ABSENT, run["status"], run["created"], run["updated"])
    rows = []
    for goal in latest:
        value = goal["conditional_throughput"] if goal["conditional_throughput"] is not None else goal["lower_bound"]
        size = goal["frame_size"]
        rows.append((None, [td(goal["search"], "num"), td(goal["repeat"], "num"), td(goal["scenario"]), td(goal["protocol"]),
                            td("%s B" % size if str(size).isdigit() else size), td(goal["flows"], "num"), td(goal["encapsulation"]),
                            td(goal["goal"]), td(goal["loss_ratio"], "num"), td(svg.rate(goal, goal["lower_bound"]), "num"),
                            td(svg.rate(goal, goal["upper_bound"]), "num"), td(svg.rate(goal, value), "num"),
                            td("yes" if goal["generator_limited"] else "no")]))
    header = ["search", "repeat", "scenario", "protocol", "frame size", "flows", "encapsulation", "goal", "loss ratio", "lower bound",
              "upper bound", "value", "generator-limited"]
    return '<p class="summary">%s</p>\n%s' % (esc(facts), table(header, rows) if rows else '<p class="note">It has no goal yet.</p>')


def mean(values):
    return sum(values) / len(values)


def comparison(item):
    """A series' latest run against the run before: both means, the change and whether it is beyond the spread (more than
    ``BEYOND`` times the larger standard deviation of the stretches the two runs are in); None for a series of one run."""
    runs = item["runs"]
    if len(runs) < 2:
        return None
    at = (len(runs) - 2, len(runs) - 1)
    spread = max(stretch["stdev"] for stretch in item["stretches"] if any(stretch["first"] <= index <= stretch["last"] for index in at))
    before, after = mean(runs[-2]["values"]), mean(runs[-1]["values"])
    spreads = abs(after - before) / spread if spread else None
    return {"before_run": runs[-2]["run_id"], "run": runs[-1]["run_id"], "before": before, "after": after,
            "change": (after - before) / before if before else None, "spreads": spreads,
            "beyond": spreads > BEYOND if spreads is not None else after != before}


def comparisons_section(series):
    """Each series' latest run against the run before it."""
    rows = []
    for index, item in enumerate(series):
        found = comparison(item)
        link = '<td><a href="#%s">%s</a></td>' % (anchor(index), esc(history.series_name(item)))
        if found is None:
            rows.append((None, [link, td("one run only: nothing to compare")] + [td(ABSENT)] * 6))
            continue
        kind = ("regression" if found["after"] < found["before"] else "progression") if found["beyond"] else None
        spreads = "%.1f" % found["spreads"] if found["spreads"] is not None else ABSENT
        rows.append((kind, [link, td(found["before_run"]), td(found["run"]), td(svg.rate(item, found["before"]), "num"),
                            td(svg.rate(item, found["after"]), "num"), td(svg.percent(found["change"]), "num"), td(spreads, "num"),
                            td("beyond the spread" if found["beyond"] else "within the spread", kind)]))
    if not rows:
        return '<p class="note">No series to compare.</p>'
    return '<p class="note">Beyond the spread: more than %g times the larger standard deviation of the stretches the two runs are in.</p>\n%s' % (
        BEYOND, table(["series", "run before", "latest run", "before", "latest", "change", "times the spread", ""], rows))


def fingerprint_columns(runs):
    """The latest runs (``FINGERPRINT_RUNS``), each with the fields that differ from the run before it (when both have a
    fingerprint)."""
    shown = []
    for index in range(max(0, len(runs) - FINGERPRINT_RUNS), len(runs)):
        now, before = runs[index]["fingerprint"], runs[index - 1]["fingerprint"] if index else {}
        differs = set(item[0] for item in fingerprint.differences(now, before)) if now and before else set()
        shown.append((runs[index], before, differs))
    return shown


def fingerprints_section(runs):
    """A column per latest run, a row per fingerprint field; what differs from the run before is highlighted."""
    columns = fingerprint_columns(runs)
    fields = sorted(set(name for run, _before, _differs in columns for name in run["fingerprint"]))
    if not fields:
        return ('<p class="note">No run records a fingerprint (its bench_fingerprint, or the DUT system in its conditions: '
                'kernel, command line, Open vSwitch and OVN).</p>')
    rows = []
    for name in fields:
        cells = [td(name)]
        for run, before, differs in columns:
            value = run["fingerprint"].get(name)
            kind = "value differs" if name in differs else "value" if value is not None else "value absent"
            cells.append(td(value, kind, "the run before: %s" % before.get(name, ABSENT) if name in differs else None))
        rows.append((None, cells))
    return table(["field"] + ["%s (%s)" % (run["run_id"], run["created"]) for run, _before, _differs in columns], rows)


def section(name, heading, body):
    return '<section id="%s">\n<h2>%s</h2>\n%s\n</section>' % (name, esc(heading), body)


def summary(data, store):
    """The line under the title: what the store holds and when it was last written (the latest run's ``updated``)."""
    runs, series = data["runs"], data["series"]
    kinds = [change["kind"] for item in series for change in item["changes"]]
    written = max([run["updated"] or run["created"] or "" for run in runs] or [ABSENT])
    return "%s, %d series, %s, %s; the latest write %s; store %s" % (
        several(len(runs), "run"), len(series), several(kinds.count("regression"), "regression"),
        several(kinds.count("progression"), "progression"), written, store)


def summary_of(content):
    """The summary line of a page (its bytes), unescaped and ended by a newline, for a diff; empty for no page."""
    found = re.search(r'<p class="summary">(.*?)</p>', content.decode("utf-8", "replace")) if content else None
    return html.unescape(found.group(1)) + "\n" if found else ""


def page(data, title, store):
    """The whole page (``data`` as ``read`` returns it, ``store`` the database as shown: no password)."""
    series, runs = data["series"], data["runs"]
    parts = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">', '<meta name="viewport" content="width=device-width, initial-scale=1">',
             '<link rel="icon" href="data:,">', "<title>%s</title>" % esc(title), "<style>\n%s\n</style>" % CSS, "</head><body>",
             "<h1>%s</h1>" % esc(title), '<p class="summary">%s</p>' % esc(summary(data, store)),
             '<nav><a href="#changes">changes</a><a href="#trends">trends</a><a href="#latest">latest run</a>'
             '<a href="#comparisons">comparisons</a><a href="#fingerprints">fingerprints</a></nav>',
             section("changes", "Changes (jumpavg: regressions first)", changes_section(series)),
             section("trends", "Trends", '<p class="note">%s</p>\n%s' % (esc(LEGEND), plots_section(series))),
             section("latest", "Latest run", latest_section(runs, data["latest"])),
             section("comparisons", "Each series' latest run against the run before", comparisons_section(series)),
             section("fingerprints", "Fingerprints of the latest %d runs (what differs from the run before highlighted)" % min(len(runs), FINGERPRINT_RUNS),
                     fingerprints_section(runs)),
             "</body></html>", ""]
    return "\n".join(parts)

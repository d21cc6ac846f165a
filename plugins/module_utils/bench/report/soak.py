# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The soak table of the benchmark report: per frame size, the long trial at a goal's conditional throughput
(``trex_bench`` ``soak_duration``), its loss ratio over the whole trial and in its worst interval, and whether it held."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.offload.testbed.plugins.module_utils.bench import units

NOTE = ("A soak is one long trial after the searches of a frame size, at the median conditional throughput (RFC 9971) of its goal "
        "over the repeats; the generator's counters are read every soak interval while it runs. \"holds\" says whether the loss "
        "ratio of the whole trial is within the goal's; the worst interval shows loss that comes and goes (a frame in flight at a "
        "reading counts in the next interval, so one interval's ratio can be a little off; the whole trial's is exact).")


def soak_rows_of(chosen):
    """``chosen``: ``{(datapath, scenario, protocol, frame size): (run id, soak)}`` -> rows in that order."""
    return [dict(soak, datapath=key[0], scenario=key[1], protocol=key[2], frame_size=key[3], run_id=run_id)
            for key, (run_id, soak) in sorted(chosen.items(), key=lambda item: units.sized_key(item[0], 3))]


def _ratio(value):
    return "-" if value is None else "%.3g" % value


def soak_table(rows):
    """Header and lines: per soak, its goal and load, duration and interval, loss ratios, whether it held (or why it did not run)."""
    header = ["datapath", "scenario", "protocol", "frame", "goal", "load", "duration", "loss ratio", "worst interval", "holds"]
    lines = []
    for row in rows:
        where = [row["datapath"], row["scenario"], row["protocol"], units.size_text(row["frame_size"]), row["goal"], units.pps_text(row["load"])]
        if row.get("skipped"):
            lines.append(where + ["-", "-", "-", "not run: %s" % row["skipped"]])
            continue
        lines.append(where + ["%.0f s (read every %.0f s)" % (row["duration"], row["interval"]), _ratio(row["loss_ratio"]),
                              _ratio(row["worst_interval_loss_ratio"]),
                              "yes" if row["holds"] else "NO (goal %s)" % _ratio(row["goal_loss_ratio"])])
    return header, lines

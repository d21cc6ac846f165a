# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The dashboard's trend plots: one inline SVG per series of ``history.trends``, drawn here as text.

A plot is a run per slot along x (in the order the runs were created), every repeat's value a point, each jumpavg
stretch its average as a horizontal segment over its runs, and each change a vertical marker at the run it starts at:
``<g class="change regression">`` (or ``progression``) whose title gives its size in % and in units of the spread.
No library and no script: the page reads the same offline, in an AWX job's artifacts or in a headless browser. The
colours are the page's style sheet (``dashboard.CSS``); the numbers are written with one decimal, so the same series
gives the same bytes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html
import math

from ansible_collections.offload.testbed.plugins.module_utils.bench import units

WIDTH, HEIGHT = 760, 250
LEFT, RIGHT, TOP, BOTTOM = 84, 16, 24, 36
# at most this many run numbers along x; the others are in the points' titles
X_LABELS = 16


def number(value):
    """A coordinate with one decimal."""
    return "%.1f" % value


def value_range(series):
    """The y axis' low and high: every value and stretch average, with a margin (a flat series gets one too)."""
    found = [value for run in series["runs"] for value in run["values"]] + [stretch["avg"] for stretch in series["stretches"]]
    low, high = min(found), max(found)
    margin = (high - low) * 0.08 or abs(high) * 0.05 or 1.0
    return low - margin, high + margin


def x_of(index, count):
    """The middle of run ``index``'s slot."""
    return LEFT + (index + 0.5) * (WIDTH - LEFT - RIGHT) / count


def y_of(value, window):
    low, high = window
    return TOP + (high - value) * (HEIGHT - TOP - BOTTOM) / (high - low)


def ticks(window, count=4):
    """Round values (1, 2, 2.5 or 5 times a power of ten apart) across the window: ``count`` of them or more (at most
    twice as many)."""
    low, high = window
    raw = (high - low) / (count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = max(factor * power for factor in (1, 2, 2.5, 5) if factor * power <= raw)
    first = math.ceil(low / step) * step
    return [first + index * step for index in range(int((high - first) / step + 1e-9) + 1)]


def rate(series, value):
    """A value as the report writes it: kpps, Mpps (kcps for connections)."""
    return units.rate_text(value, series["frame_size"])


def y_axis(series, window):
    """The horizontal grid lines and their values."""
    out = []
    for value in ticks(window):
        y = number(y_of(value, window))
        out.append('<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/>' % (LEFT, WIDTH - RIGHT, y, y))
        out.append('<text class="tick" x="%d" y="%s" text-anchor="end" dy="0.35em">%s</text>'
                   % (LEFT - 6, y, html.escape(rate(series, value))))
    return out


def x_axis(series):
    """The runs' numbers (1 is the first run), every n-th when there are many."""
    count = len(series["runs"])
    every = max(1, int(math.ceil(count / float(X_LABELS))))
    out = ['<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>' % (LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, HEIGHT - BOTTOM)]
    for index in range(0, count, every):
        out.append('<text class="tick" x="%s" y="%d" text-anchor="middle">%d</text>' % (number(x_of(index, count)), HEIGHT - BOTTOM + 14, index + 1))
    out.append('<text class="label" x="%d" y="%d" text-anchor="middle">run (in the order created)</text>' % ((LEFT + WIDTH - RIGHT) // 2, HEIGHT - 4))
    return out


def stretch_lines(series, window):
    """Each stretch's average over its runs' slots."""
    count, out = len(series["runs"]), []
    half = (WIDTH - LEFT - RIGHT) / (2.0 * count)
    for stretch in series["stretches"]:
        y = number(y_of(stretch["avg"], window))
        tip = "runs %d to %d: average %s, standard deviation %s" % (
            stretch["first"] + 1, stretch["last"] + 1, rate(series, stretch["avg"]), rate(series, stretch["stdev"]))
        out.append('<line class="stretch" x1="%s" x2="%s" y1="%s" y2="%s"><title>%s</title></line>'
                   % (number(x_of(stretch["first"], count) - half), number(x_of(stretch["last"], count) + half), y, y, html.escape(tip)))
    return out


def change_title(series, change):
    """``regression at run nightly-06 (...): 199.9 kpps -> 180.1 kpps, -9.9 %, 32.7 times the spread``."""
    spreads = "%.1f times the spread" % change["spreads"] if change["spreads"] is not None else "no spread measured"
    return "%s at run %s (%s): %s -> %s, %s, %s" % (
        change["kind"], change["run_id"], change["created"], rate(series, change["before"]), rate(series, change["after"]),
        percent(change["change"]), spreads)


def percent(fraction):
    """``-9.9 %``; ``-`` when there is none."""
    return "-" if fraction is None else "%+.1f %%" % (100.0 * fraction)


def change_marks(series):
    """A marker per change at the run its stretch starts at, red for a regression, green for a progression."""
    count, out = len(series["runs"]), []
    for change in series["changes"]:
        x = number(x_of(change["at"], count))
        out.append('<g class="change %s" data-run-id="%s" data-at="%d"><title>%s</title>' % (
            html.escape(change["kind"]), html.escape(change["run_id"]), change["at"], html.escape(change_title(series, change))))
        out.append('<line class="marker" x1="%s" x2="%s" y1="%d" y2="%d"/>' % (x, x, TOP - 6, HEIGHT - BOTTOM))
        out.append('<text class="marker" x="%s" y="%d" text-anchor="middle">%s</text></g>' % (x, TOP - 10, html.escape(percent(change["change"]))))
    return out


def points(series, window):
    """Every value of every run: a circle each, its title the run, its repeat and its value."""
    count, out = len(series["runs"]), []
    for index, run in enumerate(series["runs"]):
        x = number(x_of(index, count))
        for repeat, value in enumerate(run["values"]):
            tip = "run %d, %s (%s), repeat %d: %s" % (index + 1, run["run_id"], run["created"], repeat, rate(series, value))
            out.append('<circle class="point" cx="%s" cy="%s" r="3" data-run-id="%s"><title>%s</title></circle>'
                       % (x, number(y_of(value, window)), html.escape(run["run_id"]), html.escape(tip)))
    return out


def plot(series, name):
    """The SVG of one series (``name`` its title)."""
    window = value_range(series)
    out = ['<svg class="trend" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img">' % (WIDTH, HEIGHT, WIDTH, HEIGHT),
           "<title>%s</title>" % html.escape(name)]
    out += y_axis(series, window) + x_axis(series) + stretch_lines(series, window) + change_marks(series) + points(series, window)
    out.append("</svg>")
    return "\n".join(out)

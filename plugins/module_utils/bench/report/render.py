# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Markdown and HTML text of the benchmark report: the same tables, two renderings.

A table is ``(heading, header, lines[, paragraphs])``; a cell is a string, or a
:class:`Code` (a code span in Markdown; ``<code>`` in HTML, folded into a
``<details>`` element when longer than :data:`FOLD`). A column whose cells are
all numbers (they start with a digit; ``-`` and empty cells do not count) is
right aligned in both renderings.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import html
import re

# Code cells longer than this are folded in HTML (a kernel command line).
FOLD = 60
# Cells longer than this wrap in HTML (a note, a list of runs); the others stay on one line.
TEXT = 30
_NUMBER = re.compile(r"^(at least )?[-+]?\d")

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1400px;padding:0 1em;color:#222;line-height:1.35}
div.table{overflow-x:auto}
h1{font-size:1.6em;border-bottom:2px solid #3b6ea5;padding-bottom:.2em}
h2{font-size:1.2em;color:#1d3b5c;margin-top:1.6em}
table{border-collapse:collapse;margin:1.6em 0 .4em;font-size:.78em}
caption{caption-side:top;text-align:left;white-space:nowrap;font-weight:bold;font-size:1.2em;padding:.2em 0 .4em;color:#1d3b5c}
th,td{border:1px solid #c5cbd3;padding:1px 5px;vertical-align:top}
td{white-space:nowrap}
td.text{white-space:normal;min-width:11em}
th{background:#e8eef5;text-align:left}
tbody tr:nth-child(even){background:#f7f9fb}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th{white-space:normal;vertical-align:bottom}
td.limited{background:#fff1cc}
td code{font-size:.92em;word-break:break-all}
details summary{cursor:pointer;color:#3b6ea5}
p.note{max-width:80em;font-size:.84em;color:#444;margin:.25em 0}
figure{margin:1em 0}
figure img{max-width:100%;border:1px solid #dde}
figcaption{font-size:.88em;color:#444}
""".strip()


class Figures(list):
    """A section of plots among the tables: a list of (caption, file name)."""


class Code(str):
    """A cell shown as code (a kernel command line, other_config keys): a str, so it compares as its text."""


def numeric_columns(header, lines):
    """One boolean per column: every cell that is not ``-`` or empty starts with a number (and is no :class:`Code`)."""
    result = []
    for index in range(len(header)):
        cells = [line[index] for line in lines if str(line[index]) not in ("", "-")]
        result.append(bool(cells) and all(not isinstance(cell, Code) and _NUMBER.match(str(cell)) for cell in cells))
    return result


def _table_parts(table):
    """``(heading, header, lines)`` or ``(heading, header, lines, paragraphs)`` -> the four."""
    heading, header, lines = table[:3]
    return heading, header, lines, list(table[3]) if len(table) > 3 else []


def _md_cell(cell):
    text = str(cell).replace("\n", " ").replace("|", "\\|")
    if isinstance(cell, Code) and text:
        fence = "``" if "`" in text else "`"
        return "%s%s%s" % (fence, text, fence)
    return text


def _md_figures(images):
    out = ["## Plots", ""]
    for caption, name in images:
        out += ["![%s](%s)" % (caption, name), "", "*%s*" % caption, ""]
    return out


def _sections(tables, images):
    """The tables with the plots where a :class:`Figures` is, else after the last table."""
    if images and not any(isinstance(table, Figures) for table in tables):
        return list(tables) + [Figures(images)]
    return list(tables)


def markdown(title, tables, images=()):
    """``tables``: list of (heading, header, lines[, paragraphs]) or :class:`Figures`; ``images``: list of (caption, file name)."""
    out = ["# %s" % title, ""]
    for table in _sections(tables, images):
        if isinstance(table, Figures):
            out += _md_figures(table)
            continue
        heading, header, lines, paragraphs = _table_parts(table)
        align = numeric_columns(header, lines)
        out += ["## %s" % heading, "", "| " + " | ".join(header) + " |", "|" + "".join("---:|" if right else "---|" for right in align)]
        out += ["| " + " | ".join(_md_cell(cell) for cell in line) + " |" for line in lines]
        out.append("")
        for paragraph in paragraphs:
            out += [paragraph, ""]
    return "\n".join(out)


def _html_cell(cell, right):
    text = str(cell)
    classes = (["num"] if right else []) + (["text"] if len(text) > TEXT else []) + (["limited"] if "generator-limited" in text else [])
    attributes = " class=\"%s\"" % " ".join(classes) if classes else ""
    if isinstance(cell, Code) and len(text) > FOLD:
        body = "<details><summary><code>%s</code> ...</summary><code>%s</code></details>" % (html.escape(text[:FOLD]), html.escape(text))
    elif isinstance(cell, Code) and text:
        body = "<code>%s</code>" % html.escape(text)
    else:
        body = html.escape(text)
    return "<td%s>%s</td>" % (attributes, body)


def html_table(heading, header, lines):
    """``<table>`` with the heading as its caption, a ``<thead>`` and the numbers right aligned."""
    align = numeric_columns(header, lines)
    out = ["<div class=\"table\"><table>", "<caption>%s</caption>" % html.escape(heading),
           "<thead><tr>%s</tr></thead>" % "".join("<th%s>%s</th>" % (" class=\"num\"" if right else "", html.escape(str(cell)))
                                                  for cell, right in zip(header, align)), "<tbody>"]
    out += ["<tr>%s</tr>" % "".join(_html_cell(cell, right) for cell, right in zip(line, align)) for line in lines]
    out += ["</tbody>", "</table></div>"]
    return out


def to_html(title, tables, images=()):
    """The same tables and plots as :func:`markdown`, as one HTML page with its style sheet."""
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>%s</title>" % esc(title),
           "<style>\n%s\n</style>" % STYLE, "</head><body>", "<h1>%s</h1>" % esc(title)]
    for table in _sections(tables, images):
        if isinstance(table, Figures):
            out.append("<h2>Plots</h2>")
            out += ["<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>" % (esc(name), esc(caption), esc(caption))
                    for caption, name in table]
            continue
        heading, header, lines, paragraphs = _table_parts(table)
        out += html_table(heading, header, lines)
        out += ["<p class=\"note\">%s</p>" % esc(paragraph) for paragraph in paragraphs]
    out.append("</body></html>")
    return "\n".join(out)

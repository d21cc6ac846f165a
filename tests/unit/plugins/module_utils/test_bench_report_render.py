"""bench_report_render: one set of tables, rendered as Markdown and as HTML."""
from ansible_collections.offload.testbed.plugins.module_utils.bench.report import render

TABLE = ("Bounds", ["label", "rate", "note", "cmdline"],
         [["a|b", "1.00 Mpps", "", render.Code("x" * 70)], ["c", "-", "generator-limited", render.Code("quiet")]], ["How to read it."])


def test_numbers_are_right_aligned_and_dashes_do_not_count():
    assert render.numeric_columns(TABLE[1], TABLE[2]) == [False, True, False, False]
    assert render.numeric_columns(["n"], [["-"], [""]]) == [False]


def test_markdown_aligns_escapes_and_codes():
    text = render.markdown("T", [TABLE])
    assert "| label | rate | note | cmdline |\n|---|---:|---|---|\n| a\\|b | 1.00 Mpps |  | `%s` |" % ("x" * 70) in text
    assert "| c | - | generator-limited | `quiet` |" in text and "\nHow to read it.\n" in text


def test_html_folds_long_code_and_marks_numbers():
    text = render.to_html("T", [TABLE])
    assert "<caption>Bounds</caption>" in text and "<th class=\"num\">rate</th>" in text
    assert "<td class=\"num\">1.00 Mpps</td>" in text and "<td>a|b</td>" in text
    assert "<details><summary><code>%s</code> ...</summary><code>%s</code></details>" % ("x" * 60, "x" * 70) in text
    assert "<td><code>quiet</code></td>" in text and "<td class=\"limited\">generator-limited</td>" in text
    assert "<p class=\"note\">How to read it.</p>" in text


def test_figures_go_where_they_are_placed_or_last():
    images = [("loss of run r", "loss-r-64.png")]
    placed = render.markdown("T", [render.Figures(images), TABLE])
    assert placed.index("![loss of run r](loss-r-64.png)") < placed.index("## Bounds")
    last = render.to_html("T", [TABLE], images)
    assert last.index("<caption>Bounds</caption>") < last.index("<img src=\"loss-r-64.png\" alt=\"loss of run r\">")

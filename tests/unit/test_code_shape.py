"""The shape the house keeps in plugins/ and extensions/: no function over 60 lines, no file over 600 lines."""
import ast
import os

from ansible_collections.offload.testbed.tests.unit.plugins.module_utils import plugin_walk

TREES = ("plugins", "extensions")
MAX_FUNCTION_LINES = 60
MAX_FILE_LINES = 600


def long_functions(tree):
    """``line N: name is M lines`` for each function (or method) of ``tree`` over MAX_FUNCTION_LINES lines, its def to its last line."""
    return ["line %d: %s is %d lines" % (node.lineno, node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]


def test_no_function_is_over_60_lines():
    assert plugin_walk.offenders(TREES, long_functions) == {}


def test_no_file_is_over_600_lines():
    sizes = {}
    for rel, _tree in plugin_walk.parsed_files(*TREES):
        with open(os.path.join(plugin_walk.ROOT, rel)) as handle:
            sizes[rel] = len(handle.read().splitlines())
    assert len(sizes) > 100
    assert dict((rel, lines) for rel, lines in sizes.items() if lines > MAX_FILE_LINES) == {}


def test_the_walk_measures_what_it_says():
    body = "".join("    x%d = %d\n" % (index, index) for index in range(60))
    tree = ast.parse("def short():\n    return 1\n\n\ndef long():\n" + body)
    assert long_functions(tree) == ["line 5: long is 61 lines"]

"""The Python files of the collection's trees, parsed, for the tests that walk plugins/ for a rule."""
import ast
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def parsed_files(*tops):
    """``(path relative to the collection, ast tree)`` of every .py file under ``tops``, in order."""
    for top in tops:
        for directory, _dirs, names in sorted(os.walk(os.path.join(ROOT, top))):
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    with open(path) as handle:
                        yield os.path.relpath(path, ROOT), ast.parse(handle.read(), path)


def offenders(tops, find, skip=()):
    """``{path: what find(tree) found}`` for the files under ``tops`` (but ``skip``) where it found something."""
    found = {}
    for rel, tree in parsed_files(*tops):
        if rel not in skip:
            lines = find(tree)
            if lines:
                found[rel] = lines
    return found

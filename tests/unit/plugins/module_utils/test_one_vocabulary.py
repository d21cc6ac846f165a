"""One validation vocabulary: no file under plugins/ keeps a private copy of a module_utils/host/validate helper."""
import ast
import os

from ansible_collections.offload.testbed.plugins.module_utils.host import validate
from ansible_collections.offload.testbed.tests.unit.plugins.module_utils import plugin_walk

VALIDATE = os.path.join("plugins", "module_utils", "host", "validate.py")
HELPERS = set(name for name, value in vars(validate).items() if callable(value) and not name.startswith("_")
              and getattr(value, "__module__", None) == validate.__name__)


def _parses_an_address(node):
    """A try whose body builds an ipaddress object and whose handler catches ValueError: validate.ip_value's job."""
    if not isinstance(node, ast.Try):
        return False
    builds = any(isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "ipaddress"
                 for statement in node.body for inner in ast.walk(statement))
    catches = any("ValueError" in ast.dump(handler.type) for handler in node.handlers if handler.type is not None)
    return builds and catches


def copies(tree):
    """``line N: why`` for each private copy of a validate helper in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and node.name.lstrip("_") in HELPERS:
            found.append("line %d: %s copies validate.%s" % (node.lineno, node.name, node.name.lstrip("_")))
        if _parses_an_address(node):
            found.append("line %d: parses an address (validate.ip_value)" % node.lineno)
    return sorted(found)


def test_no_private_copy_of_a_validate_helper():
    assert plugin_walk.offenders(("plugins",), copies, skip=(VALIDATE,)) == {}


def test_the_walk_finds_the_copies_it_knows():
    sample = ("import ipaddress\n"
              "def _ipv4(value):\n    try:\n        return ipaddress.IPv4Address(str(value))\n    except ValueError:\n        return None\n"
              "def _show(value):\n    return repr(value)\n"
              "def _render(value):\n    return str(value)\n")
    assert copies(ast.parse(sample)) == ["line 2: _ipv4 copies validate.ipv4", "line 3: parses an address (validate.ip_value)",
                                         "line 7: _show copies validate.show"]
    assert {"show", "ipv4", "ip", "is_int_in", "port_number", "ip_value"} <= HELPERS

"""One validation vocabulary: no file under plugins/ keeps a private copy of a module_utils/host/validate helper."""
import ast
import os
import re
import string

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


# One way to name the user's variable: validate.Names. A naming prefix glued to an option by hand, or a module's
# ``names`` option read by hand, is a second way.
PREFIXES = ("prefix", "p", "variable_prefix")
PLACEHOLDER = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(\.(\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")
GLUED = re.compile(r"[A-Za-z_]|%s")


def _key(node):
    """The string key of a subscript (``params['names']``), or None."""
    key = node.slice.value if isinstance(node.slice, getattr(ast, "Index", ())) else node.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _is_prefix(node):
    """``prefix``, ``c.p``, ``params['variable_prefix']``: a name, attribute or key called like a naming prefix."""
    return (isinstance(node, ast.Name) and node.id in PREFIXES or isinstance(node, ast.Attribute) and node.attr in PREFIXES
            or isinstance(node, ast.Subscript) and _key(node) in PREFIXES)


def _percent_glues(node):
    """``"%sbridge" % prefix``, ``"%s%s" % (p, key)``: a prefix put right before a name by a %-format."""
    if not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)) or isinstance(node.right, ast.Dict):
        return False
    operands = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
    conversions = [match for match in PLACEHOLDER.finditer(node.left.value) if match.group(5) != "%"]
    return any(match.group(5) == "s" and GLUED.match(node.left.value, match.end()) and index < len(operands)
               and _is_prefix(operands[index]) for index, match in enumerate(conversions))


def _format_glues(node):
    """``"{}bridge".format(prefix)``: a prefix put right before a name by str.format."""
    parts, auto, glued = list(string.Formatter().parse(node.func.value.value)), 0, False
    for (_text, field, _spec, _conversion), after in zip(parts, parts[1:] + [("", None, None, None)]):
        if field is None:
            continue
        operand = node.args[auto] if field == "" and auto < len(node.args) else None
        auto += field == ""
        operand = node.args[int(field)] if field.isdigit() and int(field) < len(node.args) else operand
        operand = dict((k.arg, k.value) for k in node.keywords).get(field, operand)
        glued |= operand is not None and _is_prefix(operand) and bool(GLUED.match(after[0]) or not after[0] and after[1] is not None)
    return glued


def _fstring_glues(node):
    """``f"{prefix}bridge"``: a prefix put right before a name by an f-string."""
    return any(isinstance(value, ast.FormattedValue) and _is_prefix(value.value)
               and (isinstance(after, ast.FormattedValue) or isinstance(after, ast.Constant) and GLUED.match(after.value))
               for value, after in zip(node.values, node.values[1:]))


def _plus_glues(node):
    """``prefix + option``, ``prefix + "bridge"``: a prefix before a name by ``+`` (not a list of arguments, not ``p + ':'``)."""
    right = node.right
    if not _is_prefix(node.left) or isinstance(right, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp)):
        return False
    return not isinstance(right, ast.Constant) or isinstance(right.value, str) and bool(GLUED.match(right.value))


def _reads_names(node):
    """``params['names'].get(option)``, ``names.get(option, option)``: a module's names option read without validate.Names."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "get"):
        return False
    owner = node.func.value
    if isinstance(owner, ast.Subscript):
        return _key(owner) == "names"
    named = isinstance(owner, ast.Name) and owner.id == "names" or isinstance(owner, ast.Attribute) and owner.attr == "names"
    return named and len(node.args) == 2 and ast.dump(node.args[0]) == ast.dump(node.args[1])


def hand_made_names(tree):
    """``line N: why`` for each variable name ``tree`` builds by hand instead of with validate.Names, in line order."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _percent_glues(node):
            found.append((node.lineno, "a %-format puts a prefix before a name"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _plus_glues(node):
            found.append((node.lineno, "+ puts a prefix before a name"))
        elif isinstance(node, ast.JoinedStr) and _fstring_glues(node):
            found.append((node.lineno, "an f-string puts a prefix before a name"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
              and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str) and _format_glues(node)):
            found.append((node.lineno, "str.format puts a prefix before a name"))
        elif isinstance(node, ast.Call) and _reads_names(node):
            found.append((node.lineno, "reads the names option without validate.Names"))
    return ["line %d: %s" % each for each in sorted(found)]


def test_every_variable_is_named_by_validate_names():
    found = plugin_walk.offenders(("plugins",), hand_made_names, skip=(VALIDATE,))
    assert found == {}


def test_the_walk_finds_the_names_made_by_hand():
    sample = ('def errors(v, params, c, names, p, key, option, prefix="ovs_"):\n'
              '    a = "%sbridge: bad" % prefix\n'
              '    b = "%s%s: bad" % (p, key)\n'
              '    c = "%s: %r, set %sdatapath" % (key, v, c.p)\n'
              '    d = prefix + option\n'
              '    e = params["variable_prefix"] + "jobs"\n'
              '    f = f"{prefix}tunnels[{key}]"\n'
              '    g = "{0}bridge, {1}".format(prefix, key)\n'
              '    h = params["names"].get(option, option)\n'
              '    i = names.get(option, option)\n'
              '    return ["%s via %s" % (prefix, key), "@%s%d" % (prefix, 1), prefix + ["-d", key], p + ":",\n'
              '            "%s.%s" % (prefix, key), "%s: %s" % (key, p), f"{prefix} {key}", "{}: {}".format(prefix, key)]\n')
    assert hand_made_names(ast.parse(sample)) == [
        "line 2: a %-format puts a prefix before a name", "line 3: a %-format puts a prefix before a name",
        "line 4: a %-format puts a prefix before a name", "line 5: + puts a prefix before a name",
        "line 6: + puts a prefix before a name", "line 7: an f-string puts a prefix before a name",
        "line 8: str.format puts a prefix before a name", "line 9: reads the names option without validate.Names",
        "line 10: reads the names option without validate.Names"]

"""The recorded real outputs the emulators print.

Every line an emulator prints is a line of a file under tests/fixtures
(tests/fixtures/SOURCES.md says where each was found), with only the values
that vary put in: device names, PCI addresses, MACs, versions, counters.
tests/fixtures/emulated_outputs.yml maps each emulated command to its files,
and tests/unit/test_emulator_outputs.py checks every printed line against them.
"""
import json
import os
import re

FIXTURES = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures'))


def path(name):
    return os.path.join(FIXTURES, name)


def text(name):
    with open(path(name)) as handle:
        return handle.read()


def lines(name):
    return text(name).splitlines()


def line(name, pattern):
    """The first line of the file that matches ``pattern`` (a regular expression)."""
    for candidate in lines(name):
        if re.search(pattern, candidate):
            return candidate
    raise LookupError('%s has no line matching %r' % (name, pattern))


def document(name, index=0):
    """The ``index``-th JSON document of the file (one a line, or the whole file)."""
    body = text(name)
    try:
        return json.loads(body)
    except ValueError:
        return json.loads([item for item in body.splitlines() if item.strip()][index])


def fill(template, values):
    """``template`` with each recorded value replaced by the emulated one.

    ``values`` is a list of ``(recorded, emulated)`` pairs, applied in order,
    each to the first whole-token occurrence left of the previous one's end,
    so a value that occurs twice (``pfnum 0 vfnum 0``) is replaced where it
    is meant.
    """
    result, start = template, 0
    for recorded, emulated in values:
        pattern = re.compile(r'(?<![\w.])%s(?!\w)' % re.escape(str(recorded)))
        match = pattern.search(result, start)
        if match is None:
            raise LookupError('%r has no %r after column %d' % (template, recorded, start))
        result = result[:match.start()] + str(emulated) + result[match.end():]
        start = match.start() + len(str(emulated))
    return result


def pretty(value):
    """JSON as iproute2's ``-p`` prints it (four spaces a level, ``": "``)."""
    return json.dumps(value, indent=4, separators=(',', ': '))


def compact(value):
    """JSON as iproute2's ``-j`` prints it (no whitespace)."""
    return json.dumps(value, separators=(',', ':'))


def keep(recorded, emulated):
    """``emulated`` (a dict) in the key order of ``recorded``, with only the keys ``recorded`` has."""
    return dict((key, emulated[key]) for key in recorded if key in emulated)


def columns(rule, template, values):
    """A table row in the layout of a recorded one: ``rule`` is the table's
    ``==== =====`` line, ``template`` a recorded row; column ``i`` of the row
    becomes ``values[i]`` (``None`` keeps the recorded one), padded to the
    rule's width as the tool pads it."""
    spans = [match.span() for match in re.finditer(r'=+', rule)]
    cells = [template[start:(spans[i + 1][0] if i + 1 < len(spans) else len(template))].rstrip()
             for i, (start, _end) in enumerate(spans)]
    out = ''
    for i, (start, _end) in enumerate(spans):
        cell = cells[i] if values[i] is None else str(values[i])
        out += cell if i + 1 == len(spans) else cell.ljust(spans[i + 1][0] - start)
    return out

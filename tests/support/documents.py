"""Test documents with one value changed: what a refusal test starts from."""
import copy


def replaced(document, path, value):
    """A deep copy of ``document`` whose item at ``path`` (keys and indexes) is ``value``."""
    changed = copy.deepcopy(document)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed

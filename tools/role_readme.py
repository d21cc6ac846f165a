"""Write roles/<role>/README.md from the role's meta/argument_specs.yml.

Usage: python tools/role_readme.py [ROLE ...]   (default: every role)

The README opens with a hand-written part (kept: everything above the line
``<!-- variables: generated from meta/argument_specs.yml -->``) followed by
the generated table of variables of every entry point, so the README and the
argument spec document the same variables. tests/unit/test_role_docs.py
fails when they drift apart.
"""
import json
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MARK = "<!-- variables: generated from meta/argument_specs.yml -->"


def _text(value):
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    value = re.sub(r"\b[CIOVM]\(([^)]*)\)", r"`\1`", str(value or ""))
    return " ".join(value.split()).replace("|", "\\|")


def variables_table(specs):
    out = []
    for entry, spec in specs.items():
        out.append("### Entry point `%s`\n\n%s\n" % (entry, _text(spec.get("short_description"))))
        options = spec.get("options") or {}
        if not options:
            out.append("No variables.\n")
            continue
        out.append("| variable | type | default | description |\n|---|---|---|---|")
        for name in sorted(options):
            opt = options[name]
            kind = opt.get("type", "str")
            if opt.get("elements"):
                kind += " of " + opt["elements"]
            if opt.get("choices"):
                kind += " (%s)" % ", ".join(str(c) for c in opt["choices"])
            default = "required" if opt.get("required") else ("`%s`" % json.dumps(opt["default"]) if "default" in opt else "")
            out.append("| `%s` | %s | %s | %s |" % (name, kind, default, _text(opt.get("description"))))
        out.append("")
    return "\n".join(out)


def render(role):
    role_dir = os.path.join(ROOT, "roles", role)
    with open(os.path.join(role_dir, "meta", "argument_specs.yml")) as handle:
        specs = yaml.safe_load(handle)["argument_specs"]
    path = os.path.join(role_dir, "README.md")
    head = "# offload.testbed.%s\n\n%s\n" % (role, _text(specs["main"].get("short_description")))
    if os.path.exists(path):
        with open(path) as handle:
            current = handle.read()
        # A hand-written README without the generated part yet is kept whole.
        head = current.split(MARK)[0].rstrip() + "\n"
    return "%s\n%s\n\n## Variables\n\n%s" % (head, MARK, variables_table(specs))


def main(argv):
    roles = argv or sorted(os.listdir(os.path.join(ROOT, "roles")))
    for role in roles:
        text = render(role)  # reads the hand-written part before the file is rewritten
        with open(os.path.join(ROOT, "roles", role, "README.md"), "w") as handle:
            handle.write(text)
        print("wrote roles/%s/README.md" % role)


if __name__ == "__main__":
    main(sys.argv[1:])

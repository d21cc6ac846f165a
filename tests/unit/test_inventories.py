"""The shipped inventories against the playbooks that run them.

For every inventory (the virtual lab and the two lab inventories):
  (a) ``ansible-playbook playbooks/site.yml --list-tasks`` (and compare.yml) parses it;
  (b) every variable its files define is read by something on a host it applies to;
  (c) nothing a role that site.yml runs on a host needs is missing there;
  (d) playbooks/inventory_check.yml refuses the placeholders a lab inventory ships;
  (e) every variable renders with its templates resolved (no undefined name).
Nothing connects to a host: the variables are rendered by ``debug`` tasks run
with ``ansible_connection=local``, which never leave the controller.
"""
import collections
import functools
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest
import yaml

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
LABS = ["lab-cx6lx", "lab-cx6dx-asap2"]
INVENTORIES = ["virtual"] + LABS
# The playbooks whose roles count as "run on a host": the bench and the comparison.
RUNNERS = ["site.yml", "compare.yml"]
PLACEHOLDER = "REPLACE"
# inventory_check.yml's list when the inventory sets no site_placeholder_vars.
PLACEHOLDER_VARS = ["ansible_host", "trex_server_archive_checksum", "trex_server_archive_url"]
LOOPBACK = ("127.0.0.1", "localhost", "::1")

# What a role refuses to run without although its argument spec marks no
# option required (the specs say so in words): (role, alternatives, when).
# A need is met when one alternative is set and not empty; ``when`` is
# (variable, its default, the value for which the need applies).
NEEDED = [
    # ovn_central_address: "Required with ovn_central_state=present; the role refuses to run without it."
    ("ovn_central", ["ovn_central_address"], None),
    # ovn_controller "refuses to start without" ovn-remote and ovn-encap-ip, which the ovs role sets from these.
    ("ovn_controller", ["ovs_ovn_remote"], None),
    ("ovn_controller", ["ovs_ovn_encap_ip"], None),
    # trex_server with no instance runs no TRex, and the benchmark has nothing to talk to.
    ("trex_server", ["trex_server_instances"], None),
    # trex_server_archive_checksum: "required in mode trex, verified before unpacking".
    ("trex_server", ["trex_server_archive_checksum"], ("trex_server_mode", "trex", "trex")),
    # doca_host_repo_package_url: "Set this or doca_host_repo_package_file."
    ("doca_host", ["doca_host_repo_package_url", "doca_host_repo_package_file"], None),
]

# Playbook that renders the inventory's variables of every host, one task
# result per variable; a template with an undefined name fails its item.
RENDER_PLAYBOOK = """
- name: Render the inventory's variables
  hosts: all
  gather_facts: false
  tasks:
    - name: Render one variable
      ansible.builtin.debug:
        msg: "{{ lookup('ansible.builtin.vars', item) }}"
      loop: "{{ __inventory_names[inventory_hostname] }}"
      ignore_errors: true
"""


# --- running Ansible -----------------------------------------------------------------------------

def ansible(tool, *args, **env):
    """Run an Ansible command line of the venv from the checkout, with the collection installed by `make collection`."""
    environ = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
                   ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
                   ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".tmp", "collections"), ANSIBLE_FORCE_COLOR="0")
    environ.update(env)
    return subprocess.run([os.path.join(BIN, tool)] + list(args), capture_output=True, text=True, check=False,
                          cwd=ROOT, env=environ, timeout=300)


def inventory_path(inventory):
    return os.path.join(ROOT, "inventories", inventory)


@functools.lru_cache(maxsize=None)
def listing(inventory):
    """``ansible-inventory --list``: groups and every host's variables as written (templates not rendered)."""
    run = ansible("ansible-inventory", "-i", inventory_path(inventory), "--list")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def raw_hostvars(inventory):
    return listing(inventory)["_meta"]["hostvars"]


@functools.lru_cache(maxsize=None)
def members(inventory):
    """Group -> the set of its hosts, children included; ``all`` has every host."""
    data = listing(inventory)

    def hosts_of(group, seen=()):
        entry = data.get(group, {})
        found = set(entry.get("hosts", []))
        for child in entry.get("children", []):
            if child not in seen:
                found |= hosts_of(child, seen + (group,))
        return found

    groups = dict((name, hosts_of(name)) for name in data if name != "_meta")
    groups["all"] = set(raw_hostvars(inventory))
    return groups


def groups_of(inventory, host):
    return set(name for name, hosts in members(inventory).items() if host in hosts)


# --- the inventory's files -----------------------------------------------------------------------

def _hosts_yml_definitions(path):
    """(scope kind, scope name, variables) of every vars block and host entry of hosts.yml."""
    with open(path) as handle:
        tree = yaml.safe_load(handle) or {}
    found = []

    def walk(name, group):
        group = group or {}
        found.append(("group", name, group.get("vars") or {}))
        for host, variables in (group.get("hosts") or {}).items():
            found.append(("host", host, variables or {}))
        for child, sub in (group.get("children") or {}).items():
            walk(child, sub)

    for name, group in tree.items():
        walk(name, group)
    return found


def _vars_dir_definitions(base, kind):
    """(scope kind, scope name, variables, file) of group_vars/ or host_vars/: NAME.yml or NAME/*.yml."""
    found = []
    directory = os.path.join(base, kind + "_vars")
    for entry in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        path = os.path.join(directory, entry)
        files = [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else [path]
        name = entry if os.path.isdir(path) else os.path.splitext(entry)[0]
        for file in files:
            if file.endswith((".yml", ".yaml")):
                with open(file) as handle:
                    found.append((kind, name, yaml.safe_load(handle) or {}, os.path.relpath(file, base)))
    return found


Definition = collections.namedtuple("Definition", "file name value hosts")


@functools.lru_cache(maxsize=None)
def definitions(inventory):
    """Every variable an inventory's files define, as a Definition (hosts: the frozenset of the hosts it applies to)."""
    base = inventory_path(inventory)
    scopes = [(kind, name, variables, "hosts.yml") for kind, name, variables in _hosts_yml_definitions(os.path.join(base, "hosts.yml"))]
    scopes += _vars_dir_definitions(base, "group") + _vars_dir_definitions(base, "host")
    groups = members(inventory)
    found = []
    for kind, name, variables, file in scopes:
        hosts = frozenset([name] if kind == "host" else groups.get(name, set()))
        assert hosts, "%s: %s %s has no host in the inventory" % (file, kind, name)
        for variable, value in variables.items():
            found.append(Definition(file, variable, value, hosts))
    return found


def host_names(inventory, host):
    """The names of the variables the inventory's files give ``host``."""
    return sorted(set(d.name for d in definitions(inventory) if host in d.hosts))


def same_value(written, inventory_value):
    """Whether a value as written in a file is the one ansible-inventory reports (JSON turns int keys into strings)."""
    return json.loads(json.dumps(written)) == inventory_value


# --- what reads a variable -----------------------------------------------------------------------

def strings(node):
    """Every string in a YAML tree, keys included."""
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in strings(key) + strings(value)]
    if isinstance(node, list):
        return [s for item in node for s in strings(item)]
    return [node] if isinstance(node, str) else []


def words(node):
    """The identifiers that occur in the strings of a YAML tree (variable names among them)."""
    return set(word for text in strings(node) for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


@functools.lru_cache(maxsize=None)
def plays(playbook):
    """The plays of playbooks/``playbook``, those of the playbooks it imports included (comments are not read)."""
    with open(os.path.join(ROOT, "playbooks", playbook)) as handle:
        found = []
        for entry in yaml.safe_load(handle) or []:
            imported = entry.get("ansible.builtin.import_playbook") or entry.get("import_playbook")
            found += list(plays(imported)) if imported else [entry]
    return tuple(found)


def play_applies(play, inventory, host):
    """Whether a play runs on ``host``; a play on localhost reads the hostvars of every host (inventory_check.yml)."""
    patterns = [p.strip() for p in re.split(r"[:,]", str(play.get("hosts", ""))) if p.strip()]
    assert not any(p[0] in "!&" for p in patterns), "play %r: exclusions and intersections are not handled here" % play.get("name")
    mine = groups_of(inventory, host) | {host}
    return any(p in ("localhost", "all") or p in mine for p in patterns)


def _tasks(node):
    """Every task of a task list, those inside blocks included."""
    for task in node or []:
        yield task
        for key in ("block", "rescue", "always"):
            yield from _tasks(task.get(key))


def play_roles(play, site_host_roles):
    """(role, entry point) of the roles a play runs. A task gated on the play's copy of
    site_host_roles runs its role only when the host's site_host_roles (or the play's default) lists it."""
    gates = dict((name, value) for name, value in (play.get("vars") or {}).items() if "site_host_roles" in str(value))
    found = [((r if isinstance(r, str) else r.get("role") or r.get("name")).split(".")[-1], "main") for r in play.get("roles") or []]
    for task in _tasks((play.get("pre_tasks") or []) + (play.get("tasks") or []) + (play.get("post_tasks") or [])):
        include = next((task[k] for k in ("ansible.builtin.include_role", "include_role", "ansible.builtin.import_role",
                                          "import_role") if k in task), None)
        if include is None:
            continue
        role = include["name"].split(".")[-1]
        for gate, expression in gates.items():
            if gate in str(task.get("when", "")):
                default = yaml.safe_load(re.search(r"site_host_roles\s*\|\s*default\((\[.*?\])\)", expression).group(1))
                if role not in (default if site_host_roles is None else site_host_roles):
                    break
        else:
            found.append((role, include.get("tasks_from", "main")))
    return found


def roles_on_host(inventory, host, playbooks=tuple(RUNNERS)):
    """(role, entry point) of every role the playbooks run on ``host``."""
    site_host_roles = rendered(inventory)[host].get("site_host_roles")
    return set(role for playbook in playbooks for play in plays(playbook) if play_applies(play, inventory, host)
               for role in play_roles(play, site_host_roles))


@functools.lru_cache(maxsize=None)
def role_specs(role):
    """Entry point -> options of roles/``role``/meta/argument_specs.yml."""
    with open(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")) as handle:
        specs = yaml.safe_load(handle)["argument_specs"]
    return dict((entry, spec.get("options") or {}) for entry, spec in specs.items())


@functools.lru_cache(maxsize=None)
def role_defaults(role):
    """The role's defaults and vars: their templates read variables of the host too."""
    found = {}
    for part in ("defaults", "vars"):
        path = os.path.join(ROOT, "roles", role, part, "main.yml")
        if os.path.exists(path):
            with open(path) as handle:
                found.update(yaml.safe_load(handle) or {})
    return found


def included_words(play):
    """The names in the task files (``include_tasks``, ``import_tasks``) and templates a play's tasks use,
    paths relative to playbooks/ as the plays write them."""
    found = set()
    for task in _tasks((play.get("pre_tasks") or []) + (play.get("tasks") or []) + (play.get("post_tasks") or [])):
        for key in ("ansible.builtin.include_tasks", "ansible.builtin.import_tasks", "ansible.builtin.template"):
            path = task.get(key)
            path = path.get("src") if isinstance(path, dict) else path
            if isinstance(path, str) and "{{" not in path and os.path.isfile(os.path.join(ROOT, "playbooks", path)):
                with open(os.path.join(ROOT, "playbooks", path)) as handle:
                    text = handle.read()
                found |= words(yaml.safe_load(text) if path.endswith(".yml") else text)
    return found


def read_on_host(inventory, host):
    """The inventory variables of ``host`` something reads: an option (or default) of a role that site.yml,
    compare.yml or tunnel.yml runs there, a name in a play of playbooks/*.yml that runs there (or in the task
    files and templates it includes), a connection variable (ansible_*), or a name in the value of a variable read so."""
    values = raw_hostvars(inventory)[host]
    direct = set()
    for role, entry in roles_on_host(inventory, host, tuple(RUNNERS) + ("tunnel.yml",)):
        direct |= set(role_specs(role).get(entry, {})) | words(role_defaults(role))
    for playbook in sorted(os.listdir(os.path.join(ROOT, "playbooks"))):
        if playbook.endswith(".yml"):
            direct |= set(w for play in plays(playbook) if play_applies(play, inventory, host)
                          for w in words(play) | included_words(play))
    read = set(name for name in values if name in direct or name.startswith("ansible_"))
    frontier = set(read)
    while frontier:
        frontier = set(w for name in frontier for w in words(values[name]) if w in values) - read
        read |= frontier
    return read


# --- rendering -------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def render(inventory):
    """Host -> {name: (ok, rendered value or the error)} for every variable the inventory's files give the host."""
    names = dict((host, host_names(inventory, host)) for host in raw_hostvars(inventory))
    with tempfile.TemporaryDirectory() as tmp:
        playbook, extra = os.path.join(tmp, "render.yml"), os.path.join(tmp, "names.json")
        with open(playbook, "w") as handle:
            handle.write(RENDER_PLAYBOOK)
        with open(extra, "w") as handle:
            json.dump({"__inventory_names": names}, handle)
        run = ansible("ansible-playbook", "-i", inventory_path(inventory), playbook, "-e", "@" + extra,
                      "-e", "ansible_connection=local", ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    assert run.stdout.strip(), run.stderr
    result = dict((host, {}) for host in names)
    for play in json.loads(run.stdout)["plays"]:
        for task in play["tasks"]:
            for host, outcome in task["hosts"].items():
                for item in outcome.get("results", []):
                    result[host][item["item"]] = (not item.get("failed"), item.get("msg"))
    return result


def rendered(inventory):
    """Host -> {name: rendered value} (only the variables that rendered)."""
    return dict((host, dict((name, value) for name, (ok, value) in items.items() if ok))
                for host, items in render(inventory).items())


# --- requirements ----------------------------------------------------------------------------------

def missing_required(options, values, where):
    """Options marked required that ``values`` lacks, down the suboptions of lists and dicts of dicts."""
    missing = []
    for name, option in options.items():
        if name not in values:
            missing += ["%s%s is required and not set" % (where, name)] if option.get("required") else []
            continue
        value, sub = values[name], option.get("options")
        if sub and isinstance(value, dict):
            missing += missing_required(sub, value, "%s%s." % (where, name))
        elif sub and isinstance(value, list):
            for index, element in enumerate(value):
                missing += missing_required(sub, element if isinstance(element, dict) else {}, "%s%s[%d]." % (where, name, index))
    return missing


def unmet_needs(role, values):
    """The NEEDED alternatives of ``role`` that none of ``values`` meets."""
    unmet = []
    for need_role, alternatives, when in NEEDED:
        if need_role != role or (when and values.get(when[0], when[1]) != when[2]):
            continue
        if not any(values.get(name) not in (None, "", [], {}) for name in alternatives):
            unmet.append(" or ".join(alternatives))
    return unmet


def bench_server_problems(inventory, host):
    """Where the DUT's benchmark would look for TRex on the controller although the generator is another machine."""
    hostvars = raw_hostvars(inventory)
    if all(hostvars[gen].get("ansible_connection") == "local" for gen in members(inventory).get("generator", ())):
        return []
    values = rendered(inventory)[host]
    problems = [] if values.get("bench_server") not in (None, "") + LOOPBACK else ["bench_server is unset or the controller"]
    for scenario, overrides in (values.get("bench_scenario_vars") or {}).items():
        servers = [("server", overrides.get("server"))] if "server" in overrides else []
        servers += [("rx_server.server", (overrides.get("rx_server") or {}).get("server"))] if "rx_server" in overrides else []
        problems += ["bench_scenario_vars.%s.%s is %r" % (scenario, key, server) for key, server in servers
                     if server in (None, "") + LOOPBACK]
    return problems


def placeholders(inventory):
    """(host, name) of every top-level value that starts with REPLACE, where it is the host's value; a placeholder
    inside a value fails (inventory_check.yml reads top-level values only)."""
    found = set()
    for d in definitions(inventory):
        if isinstance(d.value, str) and d.value.strip().upper().startswith(PLACEHOLDER):
            found |= set((h, d.name) for h in d.hosts if same_value(d.value, raw_hostvars(inventory)[h].get(d.name)))
        else:
            nested = [text for text in strings(d.value) if text.strip().upper().startswith(PLACEHOLDER)]
            assert not nested, "%s: %s holds a placeholder inside it, which inventory_check.yml cannot see: %s" % (d.file, d.name, nested)
    return sorted(found)


def inventory_check(inventory, *extra):
    """playbooks/inventory_check.yml on the inventory (it runs on localhost and connects nowhere)."""
    run = ansible("ansible-playbook", "-i", inventory_path(inventory), "playbooks/inventory_check.yml",
                  "-e", "ansible_connection=local", *extra)
    return run.returncode, run.stdout + run.stderr


# --- (a) the playbooks parse the inventory ----------------------------------------------------------

@functools.lru_cache(maxsize=None)
def list_tasks(inventory):
    """``ansible-playbook --list-tasks`` of site.yml and compare.yml on the inventory."""
    return ansible("ansible-playbook", "-i", inventory_path(inventory), "--list-tasks", *["playbooks/" + p for p in RUNNERS])


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_playbooks_list_their_tasks(inventory):
    run = list_tasks(inventory)
    assert run.returncode == 0, run.stdout + run.stderr
    for playbook in RUNNERS:
        assert "playbook: playbooks/%s" % playbook in run.stdout
    assert "offload.testbed.ovs : Configure Open vSwitch" in run.stdout and "Search NDR and PDR" in run.stdout


def test_the_labs_differ_only_in_their_inventories():
    """Both lab inventories run the very same tasks: what makes each lab is in its inventory."""
    assert list_tasks(LABS[0]).stdout == list_tasks(LABS[1]).stdout
    datapaths = [rendered(lab)[sorted(members(lab)["dut"])[0]]["ovs_datapath"] for lab in LABS]
    assert datapaths == ["doca", "system"]


# --- (b) every variable is read --------------------------------------------------------------------

@pytest.mark.parametrize("inventory", INVENTORIES)
def test_every_variable_is_read(inventory):
    read = dict((host, read_on_host(inventory, host)) for host in raw_hostvars(inventory))
    unread = []
    for d in definitions(inventory):
        effective = [h for h in sorted(d.hosts) if same_value(d.value, raw_hostvars(inventory)[h].get(d.name))]
        if not effective:
            unread.append("%s: %s is overridden on every host it applies to (%s)" % (d.file, d.name, ", ".join(sorted(d.hosts))))
        elif not any(d.name in read[h] for h in effective):
            unread.append("%s: %s is read by nothing on %s" % (d.file, d.name, ", ".join(effective)))
    assert not unread, "\n".join(unread)


# --- (c) nothing required is missing ---------------------------------------------------------------

@pytest.mark.parametrize("inventory", INVENTORIES)
def test_nothing_required_is_missing(inventory):
    missing = []
    for host, values in sorted(rendered(inventory).items()):
        for role, entry in sorted(roles_on_host(inventory, host, ("site.yml",))):
            if entry == "main":
                missing += ["%s (role %s): %s" % (host, role, m) for m in missing_required(role_specs(role)["main"], values, "")]
                missing += ["%s (role %s): %s is not set" % (host, role, need) for need in unmet_needs(role, values)]
        if host in members(inventory).get("dut", ()):
            missing += ["%s (benchmark): %s" % (host, problem) for problem in bench_server_problems(inventory, host)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_every_stage_has_its_hosts(inventory):
    """site.yml's groups are all there, and every chassis runs both ovs and ovn_controller."""
    groups = members(inventory)
    for group in ("control", "dut", "generator", "chassis", "smartnic_hosts"):
        assert groups.get(group), "%s: group %s is empty or missing" % (inventory, group)
    assert groups["dut"] <= groups["chassis"]
    for host in groups["chassis"]:
        assert {("ovs", "main"), ("ovn_controller", "main")} <= roles_on_host(inventory, host, ("site.yml",))
    if inventory in LABS:
        assert groups["chassis"] == groups["dut"] | groups["generator"], "on a real bench the generator is a chassis too"


# --- (d) placeholders ------------------------------------------------------------------------------

@pytest.mark.parametrize("inventory", INVENTORIES)
def test_inventory_check_refuses_the_placeholders(inventory):
    found = placeholders(inventory)
    # inventory_check.yml runs on localhost, which sees the variables of group all only.
    hosts = set(raw_hostvars(inventory))
    watched = next((d.value for d in definitions(inventory) if d.name == "site_placeholder_vars" and d.hosts == hosts), PLACEHOLDER_VARS)
    names = sorted(set(name for host, name in found))
    assert not set(names) - set(watched), "placeholders inventory_check.yml does not look at: %s" % (set(names) - set(watched))
    rc, output = inventory_check(inventory)
    if inventory not in LABS:
        assert not found and rc == 0, output
        return
    assert hosts <= set(host for host, name in found if name == "ansible_host"), "every host's address is for the user to give"
    assert rc != 0
    for host, name in found:
        assert "%s: %s is still the placeholder" % (host, name) in output, (host, name)
    rc, output = inventory_check(inventory, *[arg for name in names for arg in ("-e", name + "=set-by-the-test")])
    assert rc == 0, output


# --- (e) every variable renders --------------------------------------------------------------------

@pytest.mark.parametrize("inventory", INVENTORIES)
def test_every_variable_renders(inventory):
    results = render(inventory)
    for host in raw_hostvars(inventory):
        assert sorted(results[host]) == host_names(inventory, host), "%s: not every variable was rendered" % host
    failed = ["%s: %s: %s" % (host, name, value) for host, items in sorted(results.items())
              for name, (ok, value) in sorted(items.items()) if not ok]
    assert not failed, "\n".join(failed)


# --- the values ------------------------------------------------------------------------------------

def plain(spec):
    """An argument_specs.yml option tree as a module argument_spec (required is checked above, per role run)."""
    out = {}
    for name, option in spec.items():
        option = dict((k, v) for k, v in option.items() if k not in ("description", "version_added", "required"))
        if "options" in option:
            option["options"] = plain(option["options"])
        out[name] = option
    return out


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_role_variables_pass_their_specs(inventory):
    """Every rendered variable named after a role is an option of one of its entry points and has its type
    (the playbooks' own switches, such as ovn_build_enabled, excepted)."""
    roles = sorted(os.listdir(os.path.join(ROOT, "roles")), key=len, reverse=True)
    switches = set(w for playbook in os.listdir(os.path.join(ROOT, "playbooks")) if playbook.endswith(".yml")
                   for play in plays(playbook) for w in words(play))
    for host, values in rendered(inventory).items():
        for role in roles:
            spec = dict((k, v) for options in role_specs(role).values() for k, v in options.items())
            mine = dict((k, v) for k, v in values.items() if k.startswith(role + "_") and (k in spec or k not in switches))
            unknown = set(mine) - set(spec)
            assert not unknown, "%s: %s not in roles/%s/meta/argument_specs.yml" % (host, sorted(unknown), role)
            result = ArgumentSpecValidator(plain(spec)).validate(mine)
            assert not result.error_messages, "%s: %s" % (host, result.error_messages)


def test_lab_inventory_is_the_reference_bench():
    hosts = rendered("lab-cx6lx")
    dut, gen = hosts["dut01"], hosts["gen01"]
    assert gen["nic_pf"] == "ens3f0np0"
    assert gen["boot_params_hugepages_1g"] == 32 and gen["boot_params_isolated_cpus"] == "2-15,34-47"
    # One VLAN plan: the PF trunks, the tap ports, the client port's representor and the topology's router port.
    vlans = hosts["ctl01"]["bench_vlans"]
    assert vlans == {"control": 10, "external": 20, "overlay": 30}
    for chassis, address in ((dut, ".2"), (gen, ".3")):
        assert chassis["ovs_uplink_trunks"] == [10, 20, 30]
        assert chassis["ovs_internal_ports"] == [{"name": "mgt", "tag": 10, "address": "10.10.0%s/24" % address},
                                                 {"name": "overlay", "tag": 30, "address": "10.30.0%s/24" % address}]
        assert chassis["ovs_ovn_encap_ip"] == "10.30.0" + address and chassis["ovs_ovn_encap_type"] == "geneve"
        # OVN databases over SSL unless a variable asks for plain TCP.
        assert chassis["ovs_ovn_remote"] == "ssl:10.10.0.4:6642" and chassis["ovs_datapath"] == "doca"
    assert gen["ovs_representors"][0] == {"name": "ens3f0npf0vf0", "bridge": "underlay", "tag": 20}
    assert [r.get("iface_id") for r in gen["ovs_representors"][1:]] == ["port1", "port2", "port3"]
    assert hosts["ctl01"]["ovn_central_allow_insecure"] is False and hosts["ctl01"]["ovn_build_enabled"] is True
    assert dut["bench_scenario_vars"]["routing"]["rx_server"]["server"] == dut["bench_server"] == gen["ansible_host"]


def test_asap2_inventory_is_the_kernel_datapath_with_and_without_offload():
    hosts = rendered("lab-cx6dx-asap2")
    dut, gen = hosts["dx-dut"], hosts["dx-gen"]
    assert (dut["ovs_datapath"], dut["ovs_hw_offload"]) == ("system", True)
    assert [(v["datapath"], v["hw_offload"]) for v in dut["bench_compare_variants"]] == [("system", True), ("system", False)]
    # No DOCA and no firmware step: only switchdev on the DUT, kernel arguments for TRex on the generator.
    assert dut["site_host_roles"] == ["sriov_switchdev"] and gen["site_host_roles"] == ["boot_params", "sriov_switchdev"]
    assert not any(name.startswith(("doca_host_", "nic_firmware_")) for host in hosts.values() for name in host)
    assert gen["trex_server_version"] == "v2.93" and dut["bench_max_load"] == 148809523


def test_virtual_inventory_runs_modules_with_the_controller_python():
    for variables in raw_hostvars("virtual").values():
        assert variables["ansible_connection"] == "local"
        assert variables["ansible_python_interpreter"] == "{{ ansible_playbook_python }}"


@pytest.mark.parametrize("inventory", INVENTORIES)
def test_compare_variants_of_the_inventories_are_sound(inventory):
    """playbooks/compare.yml accepts what the inventories give it."""
    from ansible_collections.offload.testbed.plugins.plugin_utils.bench.compare import plan  # pylint: disable=import-outside-toplevel
    expected = {"virtual": (["dpdk", "netdev"], ["dpdk", "netdev"], [False, False]),
                "lab-cx6lx": (["doca", "system"], ["doca", "system"], [True, False]),
                "lab-cx6dx-asap2": (["system-hw-offload", "system-no-offload"], ["system", "system"], [True, False])}.get(inventory)
    for host in members(inventory)["dut"]:
        variables = rendered(inventory)[host]
        result = plan(variables.get("bench_compare_variants"), variables.get("bench_compare_datapaths"),
                      variables.get("ovs_other_config", {}), variables.get("ovs_hw_offload"))
        assert result["errors"] == [], "%s: %s" % (host, result["errors"])
        if expected is None:
            continue
        assert result["names"] == expected[0]
        assert [v["datapath"] for v in result["variants"]] == expected[1]
        assert [v["ovs_hw_offload"] for v in result["variants"]] == expected[2]


def test_lab_inventory_carries_the_seed_topology():
    ctl = rendered("lab-cx6lx")["ctl01"]
    switches = dict((s["name"], s) for s in ctl["ovn_topology_switches"])
    assert {p["name"] for p in switches["external"]["ports"]} == {"internet", "downlink"}
    assert [p for p in switches["external"]["ports"] if p["name"] == "downlink"][0]["tag"] == 20
    lr0 = ctl["ovn_topology_routers"][0]
    assert lr0["nat"] == [{"type": "dnat_and_snat", "external_ip": "18.0.0.188", "logical_ip": "16.0.0.188"}]
    assert [r["prefix"] for r in lr0["static_routes"]] == ["48.0.0.0/16", "16.0.0.0/16"]
    assert [p for p in lr0["ports"] if p["name"] == "ext_gw"][0]["gateway_chassis"] == [{"chassis": "dut01", "priority": 10}]
    lbs = dict((lb["name"], lb) for lb in ctl["ovn_topology_load_balancers"])
    assert (lbs["lb-web"]["protocol"], lbs["lb-udp"]["protocol"]) == ("tcp", "udp")
    assert all(len(lb["backends"]) == 3 for lb in lbs.values())

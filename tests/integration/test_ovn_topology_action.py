"""offload.testbed.ovn_topology as Ansible runs it: the action plugin, through ``ansible-playbook``.

Against a REAL Northbound database (fixture ``nb``: a private ``ovsdb-server``),
with a declaration whose single write is longer than one shell word may be
(128 KiB), so its arguments travel on standard input: first apply, unchanged
re-apply, check mode and diff mode of a change, and a bad declaration refused
before anything is written.
"""
import json
import os
import subprocess
import sys

from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_nb import parse_nb, read_args, write_args
from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_plan import plan
from ansible_collections.offload.testbed.plugins.module_utils.topology.ovn_schema import validate

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MAX_ARG_STRLEN = 128 * 1024

PLAYBOOK = """\
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Apply the OVN topology
      offload.testbed.ovn_topology:
        nb_db: "{{ nb_db }}"
        topology: "{{ lookup('ansible.builtin.file', 'topology.json') }}"
      register: applied

    - name: Keep the result
      ansible.builtin.copy:
        content: "{{ applied | to_json }}"
        dest: "{{ playbook_dir }}/result.json"
        mode: "0644"
      check_mode: false
      diff: false
"""


def ip(base, i):
    return "%s.%d.%d" % (base, i // 250, i % 250 + 1)


def declaration(n_nat, n_vip, backend_port=80):
    vips = dict(("%s:80" % ip("18.1", i), ",".join("192.168.%d.%d:%d" % (1 + i % 3, 10 + j, backend_port) for j in range(3)))
                for i in range(n_vip))
    return {
        "switches": [{"name": "sw0", "ports": [{"name": "vm%03d" % i, "addresses": ["50:54:00:00:00:%02x 192.168.0.%d" % (i, 10 + i)]}
                                               for i in range(20)] + [{"name": "uplink", "type": "router", "router_port": "p1"}]}],
        "routers": [{"name": "lr0", "ports": [{"name": "p1", "mac": "00:00:00:00:ff:01", "networks": ["192.168.0.1/16"]}],
                     # The hosts behind the NAT rules' logical addresses, reached through a backend.
                     "static_routes": [{"prefix": "16.2.0.0/16", "nexthop": "192.168.0.3"}],
                     "nat": [{"type": "dnat_and_snat", "external_ip": ip("18.2", i), "logical_ip": ip("16.2", i)} for i in range(n_nat)],
                     "load_balancers": ["lb-web"]}],
        "load_balancers": [{"name": "lb-web", "vips": vips, "protocol": "tcp"}],
    }


def run_play(tmp_path, nb_db, topology, *options):
    (tmp_path / "topology.json").write_text(json.dumps(topology))
    (tmp_path / "apply.yml").write_text(PLAYBOOK)
    result_file = tmp_path / "result.json"
    if result_file.exists():
        result_file.unlink()
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".tmp", "pytest"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_INVENTORY_UNPARSED_WARNING="0", ANSIBLE_HOME=str(tmp_path / "ansible-home"))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,", "-c", "local",
                           "-e", "ansible_python_interpreter=%s" % sys.executable, "-e", "nb_db=%s" % nb_db,
                           str(tmp_path / "apply.yml")] + list(options),
                          env=env, capture_output=True, text=True, check=False)
    result = json.loads(result_file.read_text()) if result_file.exists() else None
    return proc, result


def nbctl(db, *args):
    return subprocess.run(["ovn-nbctl", "--db=" + db] + list(args), check=True, capture_output=True, text=True).stdout


def counts(db):
    nat = len(nbctl(db, "--bare", "--columns=_uuid", "list", "NAT").split())
    vips = json.loads(nbctl(db, "--format=json", "--columns=vips", "list", "Load_Balancer"))["data"]
    lsp = len(nbctl(db, "--bare", "--columns=_uuid", "list", "Logical_Switch_Port").split())
    return nat, sum(len(row[0][1]) for row in vips), lsp


def test_action_applies_a_long_transaction_through_stdin(nb, tmp_path):
    topology = declaration(n_nat=1200, n_vip=800)
    # the single write of this declaration does not fit in one shell word
    commands = plan(validate(dict(topology, nb_db=None, purge=False)), parse_nb(nbctl(nb, *read_args())))["commands"]
    assert sum(len(arg) + 1 for arg in write_args(commands)) > MAX_ARG_STRLEN

    # check mode: the plan, nothing written
    proc, result = run_play(tmp_path, nb, topology, "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result["changed"] is True and len(result["commands"]) == len(commands)
    assert counts(nb) == (0, 0, 0)

    proc, result = run_play(tmp_path, nb, topology)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result["changed"] is True
    assert counts(nb) == (1200, 800, 21)

    proc, result = run_play(tmp_path, nb, topology)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result["changed"] is False and result["commands"] == []

    # a change in check and diff mode: planned and shown, not written
    changed = declaration(n_nat=1199, n_vip=800, backend_port=8080)
    proc, result = run_play(tmp_path, nb, changed, "--check", "--diff")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert result["changed"] is True
    assert any(entry["before_header"] == "load_balancer lb-web" for entry in result["diff"])
    assert "192.168.1.10:80," in nbctl(nb, "lb-list", "lb-web")

    # and written
    proc, result = run_play(tmp_path, nb, changed)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "192.168.1.10:8080," in nbctl(nb, "lb-list", "lb-web")
    assert counts(nb) == (1200, 800, 21)  # purge is off: the 1,200th NAT rule stays


def test_action_refuses_a_bad_declaration_before_any_write(nb, tmp_path):
    before = nbctl(nb, "show")
    bad = declaration(n_nat=2, n_vip=1)
    bad["routers"][0]["nat"][1]["logical_ip"] = "16.2.0.999"
    bad["load_balancers"][0]["protocol"] = "sctp-ish"
    proc, result = run_play(tmp_path, nb, bad)
    assert proc.returncode != 0
    assert result is None
    assert "invalid OVN topology: 2 error(s)" in proc.stdout
    assert "routers[lr0].nat[1].logical_ip" in proc.stdout
    assert nbctl(nb, "show") == before

"""grubby_args with run_command answered from the verbatim grubby fixture."""
import os

from ansible_collections.offload.testbed.plugins.modules import grubby_args
from modtest import run_module

FIXTURE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "fixtures", "grubby_info_all_fedora37.txt"))
ARGS = ["intel_iommu=on", "iommu=pt", "default_hugepagesz=1G", "hugepagesz=1G", "hugepages=32", "hugepagesz=2M", "hugepages=0"]
READ = ("grubby", "--info=ALL")
WRITE = ("grubby", "--update-kernel=ALL", "--args=" + " ".join(ARGS))


def fixture():
    with open(FIXTURE) as handle:
        return handle.read()


def with_args(text, tokens):
    """The fixture as grubby prints it after appending tokens to every entry."""
    return "\n".join(line[:-1] + " " + " ".join(tokens) + '"' if line.startswith("args=") else line for line in text.splitlines()) + "\n"


def test_writes_once_for_all_entries(monkeypatch):
    table = {
        READ: lambda calls: (0, fixture() if len(calls) == 1 else with_args(fixture(), ARGS), ""),
        WRITE: (0, "", ""),
    }
    result, failed, calls = run_module(grubby_args.main, {"args": ARGS, "_ansible_diff": True}, table, monkeypatch)
    assert not failed, result
    assert calls == [READ, WRITE, READ]
    assert result["changed"] is True
    assert result["commands"] == ["grubby --update-kernel=ALL '--args=%s'" % " ".join(ARGS)]
    assert "/boot/vmlinuz-6.5.12-100.fc37.x86_64: \n" in result["diff"]["before"]
    assert "/boot/vmlinuz-6.5.12-100.fc37.x86_64: %s\n" % " ".join(ARGS) in result["diff"]["after"]


def test_nothing_to_do_when_set_equal(monkeypatch):
    table = {READ: (0, with_args(fixture(), ARGS[2:] + ["iommu=pt", "intel_iommu=on"]), "")}
    result, failed, calls = run_module(grubby_args.main, {"args": ARGS}, table, monkeypatch)
    assert not failed and result["changed"] is False and result["commands"] == []
    assert calls == [READ]


def test_check_mode_only_reads(monkeypatch):
    table = {READ: (0, fixture(), "")}
    result, failed, calls = run_module(grubby_args.main, {"args": ARGS, "_ansible_check_mode": True}, table, monkeypatch)
    assert not failed and result["changed"] is True and calls == [READ]
    assert result["entries"]["/boot/vmlinuz-6.5.10-100.fc37.x86_64"] == {"remove": [], "add": ARGS}


def test_duplicates_are_repaired_per_entry_on_default(monkeypatch):
    current = with_args(fixture(), ["iommu=pt", "iommu=pt"]).split("index=1", maxsplit=1)[0]
    read = ("grubby", "--info=DEFAULT")
    write = ("grubby", "--update-kernel=/boot/vmlinuz-6.5.12-100.fc37.x86_64", "--remove-args=iommu=pt iommu=pt", "--args=iommu=pt")
    repaired = with_args(fixture(), ["iommu=pt"]).split("index=1", maxsplit=1)[0]
    table = {read: lambda calls: (0, current if len(calls) == 1 else repaired, ""), write: (0, "", "")}
    result, failed, calls = run_module(grubby_args.main, {"args": ["iommu=pt"], "target": "DEFAULT"}, table, monkeypatch)
    assert not failed, result
    assert calls == [read, write, read]


def test_fails_when_grubby_did_not_apply(monkeypatch):
    table = {READ: (0, fixture(), ""), WRITE: (0, "", "")}
    result, failed, calls = run_module(grubby_args.main, {"args": ARGS}, table, monkeypatch)
    assert failed and result["msg"].startswith("grubby did not leave the arguments as planned")


def test_refuses_args_outside_managed_keys(monkeypatch):
    result, failed, calls = run_module(grubby_args.main, {"args": ["quiet"], "managed_keys": ["iommu"]}, {}, monkeypatch)
    assert failed and result["msg"] == "args: quiet has key quiet, which is not in managed_keys" and calls == []


def test_refuses_a_hugepage_size_an_x86_cpu_cannot_map(monkeypatch):
    result, failed, calls = run_module(grubby_args.main, {"args": ["hugepagesz=16M", "hugepages=4"]}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == "args: hugepage size '16M' is not one an x86 CPU can map; use 2M and 1G"


def test_refuses_an_argument_with_a_blank(monkeypatch):
    result, failed, calls = run_module(grubby_args.main, {"args": ["console=ttyS0 quiet"]}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"] == ("args[0]: 'console=ttyS0 quiet' is not one kernel argument; write one argument (key=value or a flag) "
                             "per item, without spaces or quotes")


def test_refuses_an_empty_argument(monkeypatch):
    result, failed, calls = run_module(grubby_args.main, {"args": ["intel_iommu=on", ""]}, {}, monkeypatch)
    assert failed and calls == []
    assert result["msg"].startswith("args[1]: '' is not one kernel argument;")

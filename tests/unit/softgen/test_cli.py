"""softgen's command line: the CPU list of --cpus, and the pinning it asks for."""
import argparse
import os

import pytest

from softgen import __main__ as cli


@pytest.mark.parametrize("text, cpus", [("0", {0}), ("1", {1}), ("0,2-3", {0, 2, 3}), ("4-6,1", {1, 4, 5, 6})])
def test_cpu_lists_in_the_kernel_form(text, cpus):
    assert cli.parse_cpus(text) == cpus


@pytest.mark.parametrize("text", ["", "a", "0,,1", "1-x"])
def test_a_cpu_list_that_is_not_one_is_refused_naming_the_option(text):
    with pytest.raises(argparse.ArgumentTypeError) as error:
        cli.parse_cpus(text)
    assert str(error.value) == "--cpus: %r is not a CPU list such as 0 or 0,2-3" % text


def test_the_parser_takes_cpus_and_leaves_them_unset_by_default():
    parser = cli.build_parser()
    assert parser.parse_args(["--port", "p0:-:lo"]).cpus is None
    assert parser.parse_args(["--port", "p0:-:lo", "--cpus", "0"]).cpus == {0}


def test_main_pins_itself_before_it_starts_the_port_workers(monkeypatch):
    calls = []

    class Server:
        def __init__(self, *_args, **_kwargs):
            calls.append(("server", sorted(os.sched_getaffinity(0))))

        def bind(self):
            raise cli.zmq.ZMQError(98)

        rpc_addr = pub_addr = "tcp://127.0.0.1:1"

    first = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    monkeypatch.setattr(cli, "SoftGenServer", Server)
    try:
        assert cli.main(["--port", "p0:-:lo", "--cpus", str(first), "--priority", "normal"]) == 1
    finally:
        os.sched_setaffinity(0, before)
    assert calls == [("server", [first])]

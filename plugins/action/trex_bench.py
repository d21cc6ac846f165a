# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action ``offload.testbed.trex_bench``: wiring of the bench in ``plugins/plugin_utils/bench/`` (see docs/bench.md).

The one argument spec (``bench/spec.py``) validates; a :class:`BenchRun` over a
:class:`TRexGenerator` (or, with ``generator: testpmd``, a :class:`TestpmdGenerator`) runs;
``dut_health`` on the task's host is the DUT's health.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import time
import traceback

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.offload.testbed.plugins.module_utils.bench import results_db
from ansible_collections.offload.testbed.plugins.plugin_utils.bench import spec, trex_profile
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.astf import ASTFGenerator
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.generator import BenchError, GeneratorLost
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.profile import fingerprint
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.results import ResumeError, SchemaError, Store
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.run import BenchRun, first_connect, run_header, run_stats
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.testpmd import TestpmdGenerator
from ansible_collections.offload.testbed.plugins.plugin_utils.bench.trex import ClientOutput, TRexGenerator, first_line, load_client

display = Display()


def results_dir_error(results_dir, why):
    return "results_dir: %s cannot hold the results: %s; give a directory the controller's user can write, or a path to create" % (
        results_dir, why)


def make_results_dir(results_dir):
    """The results directory, made and checked writable before anything is sent (no generator is connected before)."""
    try:
        os.makedirs(results_dir, exist_ok=True)
    except OSError as error:
        raise BenchError(results_dir_error(results_dir, error.strerror or error))
    if not os.access(results_dir, os.W_OK | os.X_OK):
        raise BenchError(results_dir_error(results_dir, "the controller's user cannot write it"))


class ActionModule(ActionBase):
    TRANSFERS_FILES = False

    def health(self, task_vars, system=False, interfaces=None, args=None):
        """The DUT's health from the ``dut_health`` module on the task's host; with ``args`` that ask for tc filters, receive
        queues or conntrack, what ``offload_facts`` read right after it goes into ``offload_facts``."""
        args = args or {}
        module_args = dict(system=system, **({"interfaces": interfaces} if interfaces else {}))
        if args.get("dut_all_flows"):
            module_args["all_flows"] = True
        reply = self.module(task_vars, "dut_health", module_args)
        if args.get("dut_tc_devices") or args.get("dut_queue_devices") or args.get("dut_conntrack"):
            reply["offload_facts"] = self.module(task_vars, "offload_facts", {
                "dump_flows": "none", "pmd_stats_command": "", "tc_devices": args["dut_tc_devices"],
                "queue_devices": args["dut_queue_devices"], "conntrack": args["dut_conntrack"]})
        return reply

    def module(self, task_vars, name, module_args):
        """A reading module's reply; its failure stops the run, saying how to run without it."""
        reply = self._execute_module(module_name="offload.testbed." + name, module_args=module_args, task_vars=task_vars)
        if reply.get("failed"):
            without = "set dut_health: false" if name == "dut_health" else "empty dut_tc_devices and dut_queue_devices and set dut_conntrack: false"
            raise BenchError("%s on %s failed: %s (%s to benchmark without it)" % (name, task_vars.get("inventory_hostname"), reply.get("msg"), without))
        return reply

    def run(self, tmp=None, task_vars=None):
        task_vars = task_vars or {}
        result = super(ActionModule, self).run(tmp, task_vars)
        _validation, params = self.validate_argument_spec(argument_spec=spec.argument_spec())
        args, errors = spec.check(params)
        if errors:
            result.update(failed=True, msg="trex_bench: invalid arguments, nothing was sent:\n- " + "\n- ".join(errors), errors=errors)
            return result
        if args["run_id"] is None:
            args["run_id"] = "%s-%s-%s-%s" % (args["datapath"], args["scenario"], args["protocol"], time.strftime("%Y%m%dT%H%M%S", time.gmtime()))
        results_dir = os.path.abspath(os.path.expanduser(args["results_dir"]))
        if self._task.check_mode:
            if os.path.exists(results_dir) and not os.path.isdir(results_dir):
                return self.fail(result, None, results_dir_error(results_dir, "it is not a directory"))
            result.update(changed=False, msg="check mode: arguments are valid; no traffic sent, nothing written", run_id=args["run_id"])
            return result
        output = ClientOutput(lambda line: display.v("trex_bench: %s" % line))
        generator = store = database = None
        try:
            make_results_dir(results_dir)
            database = results_db.open_for(args, results_dir)
            output.start()
            if args["generator"] == "testpmd":
                generator = TestpmdGenerator(args, log=display.vvv)
            elif args["stateful"]:
                generator = ASTFGenerator(load_client("trex", args["client_path"], stateful=True), args)
            else:
                api = load_client(args["client"], args["client_path"])
                if args["profile"]:
                    trex_profile.attach(api, args)
                generator = TRexGenerator(api, args)
            first_connect(generator, args, display.warning)
            store = self.open_store(args, results_dir, generator, task_vars, database)
            health = (lambda: self.health(task_vars, args=args)) if args["dut_health"] else None
            summaries = BenchRun(args, generator, store, health=health, log=display.display, warn=display.warning).run()
            store.finish("complete")
        except (BenchError, GeneratorLost, ResumeError, SchemaError, results_db.ResultsDBError) as error:
            return self.fail(result, store, str(error), getattr(error, "detail", None))
        except Exception as error:  # pylint: disable=broad-except
            return self.fail(result, store, "%s: %s" % (type(error).__name__, first_line(error)), traceback.format_exc())
        finally:
            if generator is not None:
                generator.stop()
            if database is not None:
                database.close()
            output.stop()
        result.update(changed=store.measured > 0, run_id=args["run_id"], results_file=store.path, csv_file=store.csv_path,
                      resumed=store.resumed, searches=summaries, results_db=results_db.outcome(database, store))
        if store.database_error:
            display.warning("trex_bench: %s; every trial is in %s: import it later (bench_results_db)" % (store.database_error, store.path))
        result["ansible_stats"] = {"data": run_stats(args, summaries, store.path), "per_host": False, "aggregate": True}
        return result

    def open_store(self, args, results_dir, generator, task_vars, database=None):
        """The run's results store, written once before the first trial."""
        system = self.health(task_vars, system=True, interfaces=args["dut_interfaces"]) if args["dut_health"] else None
        if system is not None and system.get("pid") is None:
            raise BenchError("dut_health: ovs-vswitchd is not running on %s; start it, or set dut_health: false "
                             "for a DUT without Open vSwitch" % task_vars.get("inventory_hostname"))
        header = run_header(args, generator.info(), task_vars.get("inventory_hostname"), (system or {}).get("system"))
        store = Store(results_dir, args["run_id"], fingerprint(args), header, database=database)
        store.save()
        return store

    @staticmethod
    def fail(result, store, message, detail=None):
        """A one-line message (the client's whole error goes to the results file) that says how to resume."""
        message = first_line(message) if "\n" in message else message
        if store is not None:
            try:
                store.finish("failed", message, detail)
            except Exception:  # pylint: disable=broad-except
                pass
            if "resume" not in message:
                message += "; every finished trial is in %s: run again with run_id=%s to resume" % (store.path, store.run_id)
            result["results_file"] = store.path
        result.update(failed=True, msg="trex_bench: %s" % message)
        return result

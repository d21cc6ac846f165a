# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Results of a ``trex_bench`` run on disk: one JSON document per run, one CSV line per goal.

Every finished trial is written at once (the JSON is replaced atomically), so a
crash or a lost generator keeps every trial done so far; with a results
database (``results_db.py``) the run's rows are written just before the file.  Running again with
the same run id resumes: :class:`Replay` hands the search the recorded trials
in order (the search is deterministic, so it asks for the same trials again)
and only the trials after them are measured.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import csv
import json
import os
import tempfile
import time
import uuid

try:
    import jsonschema
except ImportError:  # pragma: no cover - requirements.txt installs it
    jsonschema = None

from ansible_collections.offload.testbed.plugins.module_utils.bench import units
from ansible_collections.offload.testbed.plugins.module_utils.bench.schema import READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION
from ansible_collections.offload.testbed.plugins.module_utils.bench.results_db import ResultsDBError

CSV_NAME = "results.csv"
CSV_FIELDS = ("run_id", "datapath", "scenario", "protocol", "frame_size", "direction", "flows", "goal", "loss_ratio",
              "lower_bound_pps", "upper_bound_pps", "generator_limited", "trials", "trial_seconds", "finished", "repeat")
GENERATOR_SHORTFALL = 0.01
# docs/results-schema.json of the installed collection (plugins/plugin_utils/bench/ -> the collection's root)
SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "results-schema.json")
_VALIDATORS = {}


class ResumeError(Exception):
    """The results file on disk cannot be resumed with these arguments."""


class SchemaError(Exception):
    """The document the store was about to write does not validate against docs/results-schema.json."""


def schema_errors(document, path=SCHEMA_PATH):
    """Every way ``document`` breaks the results schema, as ``where: message`` lines (empty: valid)."""
    if jsonschema is None:
        return []
    if path not in _VALIDATORS:
        with open(path) as handle:
            schema = json.load(handle)
        _VALIDATORS[path] = jsonschema.Draft202012Validator(schema)
    found = []
    for error in sorted(_VALIDATORS[path].iter_errors(document), key=lambda item: list(item.absolute_path)):
        where = "".join("[%d]" % part if isinstance(part, int) else ".%s" % part for part in error.absolute_path).lstrip(".")
        found.append("%s: %s" % (where or "(document)", error.message))
    return found


def upgrade(document):
    """A document of an older schema version in this version's shape (version 1: one repeat per search; version 2:
    no RFC 9971 quantities, which stay absent)."""
    if document.get("schema_version") == 1:
        document["search"] = dict(document.get("search") or {}, repeat=1)
        for entry in document.get("searches", []):
            entry.setdefault("repeat", 0)
            entry.setdefault("interrupted_trials", [])
        document.setdefault("summaries", [])
    if document.get("schema_version") in (1, 2):
        document["schema_version"] = SCHEMA_VERSION
    return document


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def result_path(results_dir, run_id):
    return os.path.join(results_dir, "%s.json" % run_id)


def write_json_atomic(path, document):
    directory = os.path.dirname(path) or "."
    handle, tmp = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), dir=directory)
    try:
        with os.fdopen(handle, "w") as out:
            json.dump(document, out, indent=1, sort_keys=True)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def is_generator_limited(load, duration, offered):
    """Whether the generator sent more than 1 % less than asked."""
    if load <= 0 or duration <= 0:
        return False
    return offered < (1.0 - GENERATOR_SHORTFALL) * load * duration


def label_goals(result, trials, max_load):
    """Add ``generator_limited`` to each goal of a search result.

    A bound is generator-limited when the trial it rests on (the lower
    bound's trial, or a final trial at the upper bound) did not get the
    asked rate out of the generator: the number is then the generator's
    ceiling, not the device's capacity.
    """
    labelled = {}
    for name, goal in result["goals"].items():
        entry = dict(goal)
        limited = False
        index = goal.get("lower_bound_trial")
        if index is not None and trials[index].get("generator_limited"):
            limited = True
        for trial in trials:
            if trial["load"] == goal["upper_bound"] and trial["load"] < max_load and trial.get("generator_limited"):
                limited = True
        entry["generator_limited"] = limited
        labelled[name] = entry
    return labelled


class Store:
    """The results document of one run and the CSV next to it.

    Only the store changes the document; every change is written at once,
    and with ``validate`` (the default) only after the whole document
    validates against the schema.
    """

    def __init__(self, results_dir, run_id, fingerprint, header, validate=True, database=None):
        self.results_dir = results_dir
        self.database = database
        self.database_error = None
        self.run_id = run_id
        self.path = result_path(results_dir, run_id)
        self.csv_path = os.path.join(results_dir, CSV_NAME)
        self.validate = validate
        self.resumed = False
        self.measured = 0
        if os.path.exists(self.path):
            document = self._resume(fingerprint, header)
        else:
            document = dict(header)
            document.update({"schema_version": SCHEMA_VERSION, "run_id": run_id, "run_uuid": uuid.uuid4().hex, "fingerprint": fingerprint,
                             "created": now(), "status": "running", "error": None, "resumed": 0, "searches": [], "summaries": []})
        self.document = document

    def _resume(self, fingerprint, header):
        with open(self.path) as handle:
            try:
                document = json.load(handle)
            except ValueError as error:
                raise ResumeError("%s is not valid JSON (%s): move it away or use another run_id" % (self.path, error))
        if document.get("schema_version") not in READABLE_SCHEMA_VERSIONS:
            raise ResumeError("%s has schema_version %r, this collection reads %s: use another run_id"
                              % (self.path, document.get("schema_version"), ", ".join(str(version) for version in READABLE_SCHEMA_VERSIONS)))
        if document.get("fingerprint") != fingerprint:
            raise ResumeError("%s was started with a different profile, goals or search settings (fingerprint %s, now %s): "
                              "resume it with the same arguments or use another run_id"
                              % (self.path, document.get("fingerprint"), fingerprint))
        document = upgrade(document)
        self.resumed = True
        document["resumed"] = document.get("resumed", 0) + 1
        document["status"] = "running"
        document["error"] = None
        document.pop("error_detail", None)
        document.update({key: value for key, value in header.items() if key in ("metadata", "generator", "search", "bench_fingerprint")})
        return document

    def save(self):
        self.document["updated"] = now()
        if self.validate:
            errors = schema_errors(self.document)
            if errors:
                raise SchemaError("the results document of %s does not validate against docs/results-schema.json, nothing written: %s"
                                  % (self.run_id, "; ".join(errors[:5])))
        if self.database is not None:
            self._store_in_database()
        write_json_atomic(self.path, self.document)

    def _store_in_database(self):
        """The run's rows before its file, so that a trial in the file is in the database. A database that fails does not
        stop the run: the file stays the primary record, the error is kept (``database_error``) and the next save that
        reaches the database writes the whole run again."""
        try:
            self.database.store(self.document, self.path)
        except ResultsDBError as error:
            self.database_error = str(error)
        else:
            self.database_error = None

    def search_entry(self, profile, repeat=0):
        """The search of this profile and repeat, created (empty) when new.

        A resumed run finds its searches here: the profile holds the frame size and the search's flow count
        (``profile.flows``, one of ``search.flow_counts`` when ``flows`` was a list), so each frame size x flow
        count x repeat resumes its own trials."""
        for entry in self.document["searches"]:
            if entry["profile"] == profile and entry.get("repeat", 0) == repeat:
                return entry
        entry = {"profile": profile, "repeat": repeat, "status": "running", "warmup": None, "trials": [], "invalid_trials": [],
                 "interrupted_trials": [], "result": None}
        self.document["searches"].append(entry)
        return entry

    def trial_count(self):
        """Finished trials on disk, every search of the run."""
        return sum(len(entry["trials"]) for entry in self.document["searches"])

    def set_warmup(self, entry, warmup):
        entry["warmup"] = warmup
        self.save()

    def add_trial(self, entry, trial):
        entry["trials"].append(trial)
        self.measured += 1
        self.save()

    def add_invalid(self, entry, trial):
        entry["invalid_trials"].append(trial)
        self.save()

    def add_interrupted(self, entry, trial):
        entry["interrupted_trials"].append(trial)
        self.save()

    def next_pg_id(self, first):
        return self.document.get("latency_next_pg_id", first)

    def use_pg_id(self, pg_id):
        self.document["latency_next_pg_id"] = pg_id + 1
        self.save()

    def latency(self, entry, goal, reference):
        """The latency part of a search entry, created when new."""
        return entry.setdefault("latency", {"reference_goal": goal, "reference_load": reference, "points": [], "skipped": None})

    def add_latency_point(self, latency, point):
        latency["points"].append(point)
        self.save()

    def skip_latency(self, latency, reason):
        latency["skipped"] = reason
        self.save()

    def set_soak(self, entry, soak):
        """The soak trial of the frame size whose first search is ``entry`` (or why none ran)."""
        entry["soak"] = soak
        self.save()

    def finish_search(self, entry, result, max_load):
        goals = label_goals(result, entry["trials"], max_load)
        entry["result"] = {"goals": goals, "trial_seconds": result["trial_seconds"], "trials": len(entry["trials"])}
        entry["status"] = "complete"
        self.save()
        self.append_csv(entry)
        return entry["result"]

    def set_summary(self, profile, summary):
        """The statistics over the repeats of ``profile``'s searches (replaces an earlier one)."""
        summaries = [item for item in self.document.setdefault("summaries", []) if item["profile"] != profile]
        summaries.append(dict(summary, profile=profile))
        self.document["summaries"] = summaries
        self.save()

    def append_csv(self, entry):
        fields = CSV_FIELDS
        if os.path.exists(self.csv_path):
            with open(self.csv_path) as handle:
                # a results.csv begun by an older version keeps its columns
                fields = next(csv.reader(handle), None) or CSV_FIELDS
        profile = entry["profile"]
        with open(self.csv_path, "a") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
            if fields is CSV_FIELDS:
                writer.writeheader()
            for name, goal in entry["result"]["goals"].items():
                writer.writerow({
                    "run_id": self.run_id, "datapath": self.document.get("datapath"), "scenario": units.scenario_text(profile),
                    "protocol": profile["protocol"], "frame_size": profile["frame_size"], "direction": profile["direction"],
                    "flows": profile["flows"], "goal": name, "loss_ratio": goal["loss_ratio"],
                    "lower_bound_pps": goal["lower_bound"], "upper_bound_pps": goal["upper_bound"],
                    "generator_limited": goal["generator_limited"], "trials": entry["result"]["trials"],
                    "trial_seconds": entry["result"]["trial_seconds"], "finished": now(), "repeat": entry.get("repeat", 0),
                })

    def finish(self, status, error=None, detail=None):
        self.document["status"] = status
        self.document["error"] = error
        if detail:
            self.document["error_detail"] = detail
        self.save()


class Replay:
    """Wraps a measure: answers from recorded trials first, in order, then measures."""

    def __init__(self, recorded, measure):
        self.recorded = list(recorded)
        self.measure = measure
        self.position = 0

    @property
    def replaying(self):
        return self.position < len(self.recorded)

    def __call__(self, load, duration):
        if self.position < len(self.recorded):
            trial = self.recorded[self.position]
            if trial["load"] != load or trial["duration"] != duration:
                raise ResumeError("resume: the search asked for %.3f pps for %.3f s where the results file recorded %.3f pps for %.3f s "
                                  "(trial %d); the file does not come from this search: use another run_id"
                                  % (load, duration, trial["load"], trial["duration"], self.position))
            self.position += 1
            return dict(trial, replayed=True)
        return self.measure(load, duration)


def progress_line(index, trial, spent, estimate_left, unit="pps"):
    """One line per trial: load, loss, elapsed and estimated remaining time."""
    flags = []
    if trial.get("generator_limited"):
        flags.append("generator-limited")
    if trial.get("invalid"):
        flags.append("INVALID: " + "; ".join(trial["invalid"]))
    if trial.get("replayed"):
        flags.append("replayed")
    if trial.get("interrupted_before"):
        flags.append("run again after %d interruption(s)" % trial["interrupted_before"])
    if trial.get("excess"):
        flags.append("%d frames more received than sent" % trial["excess"])
    if trial.get("starved"):
        flags.append("DUT starved: " + "; ".join(trial["starved"]))
    return "trial %3d  %12.1f %s x %5.2f s  loss %.6f%%  achieved %12.1f %s  elapsed %6.1f s  left ~%6.1f s%s" % (
        index, trial["load"], unit, trial["duration"], 100.0 * trial["loss_ratio"], trial.get("achieved_load", 0.0), unit,
        spent, estimate_left, ("  [" + ", ".join(flags) + "]") if flags else "")

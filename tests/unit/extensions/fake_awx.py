"""A tiny AWX API on 127.0.0.1 for the awx.awx modules, and AWX's own survey rules.

``FakeAwx`` keeps objects in memory the way the AWX API v2 lists and
serves them, enough for the modules extensions/awx/configure.yml calls:
name lookups (``?name=``, ``?identifier=``, any field filter), creation
(POST to a list), updates (PATCH), survey specs, associations (credentials,
success_nodes...), token login and logout. Every request is recorded.
A survey spec is refused (400) as AWX refuses it (``survey_spec_errors``).

``survey_spec_errors`` and ``answer_errors`` follow AWX's
``JobTemplateSurveySpec._validate_spec_data`` (awx/api/views) and
``SurveyJobTemplateMixin._survey_element_validation`` (awx/main/models/mixins.py).
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

API = "/api/v2/"
# The types of a survey question and the type of its default (AWX's ALLOWED_TYPES).
SURVEY_TYPES = {"text": str, "textarea": str, "password": str, "multiplechoice": str, "multiselect": str,
                "integer": int, "float": (float, int)}
# Sub-lists the modules associate objects through: the collection of the associated objects.
ASSOCIATIONS = {"credentials": "credentials", "labels": "labels", "instance_groups": "instance_groups",
                "success_nodes": "workflow_job_template_nodes", "failure_nodes": "workflow_job_template_nodes",
                "always_nodes": "workflow_job_template_nodes", "galaxy_credentials": "credentials"}
UNIFIED = ("job_templates", "workflow_job_templates", "projects", "inventory_sources")
TOKEN = {"id": 4242, "token": "fake-awx-token"}


def _type_of(collection):
    return {"inventories": "inventory", "inventory_sources": "inventory_source"}.get(collection, collection[:-1])


def survey_spec_errors(spec):
    """What AWX answers when this survey spec is posted (empty when it takes it)."""
    errors = []
    for field, kind in (("name", str), ("description", str), ("spec", list)):
        if not isinstance(spec.get(field), kind):
            errors.append("%s missing or not a %s" % (field, kind.__name__))
    if errors:
        return errors
    if not spec["spec"]:
        errors.append("'spec' doesn't contain any items.")
    variables = set()
    for index, question in enumerate(spec["spec"]):
        for field, kind in (("type", str), ("question_name", str), ("variable", str), ("required", bool)):
            if not isinstance(question.get(field), kind):
                errors.append("question %d: %s missing or not a %s" % (index, field, kind.__name__))
        if errors:
            continue
        if question["variable"] in variables:
            errors.append("question %d: variable %s duplicated" % (index, question["variable"]))
        variables.add(question["variable"])
        kind = SURVEY_TYPES.get(question["type"])
        if kind is None:
            errors.append("question %d: type %s is not a question type" % (index, question["type"]))
            continue
        if "default" in question and not isinstance(question["default"], kind):
            errors.append("question %d: default %r is not a %s" % (index, question["default"], question["type"]))
        for key in ("min", "max"):
            if question.get(key) is not None and not isinstance(question[key], int):
                errors.append("question %d: %s is not an integer" % (index, key))
        if question["type"] in ("multiplechoice", "multiselect") and "choices" not in question:
            errors.append("question %d: %s must specify choices" % (index, question["type"]))
    return errors


def _choices(question):
    choices = question["choices"]
    if isinstance(choices, str):
        choices = [choice for choice in choices.splitlines() if choice.strip()]
    return choices


def answer_errors(question, answers):
    """What AWX says of the answers (extra vars) to one question at launch (empty when it takes them)."""
    variable = question["variable"]
    if variable not in answers:
        return ["'%s' value missing" % variable] if question["required"] else []
    value, kind = answers[variable], question["type"]
    if kind in ("text", "textarea", "password"):
        if not isinstance(value, str):
            return ["%s: %r is not a string" % (variable, value)]
        too_short = question.get("min") not in ("", None) and len(value) < int(question["min"])
        too_long = question.get("max") not in ("", None) and len(value) > int(question["max"])
        return ["%s: %r has a length outside min..max" % (variable, value)] if too_short or too_long else []
    if kind in ("integer", "float"):
        if type(value) not in ((int,) if kind == "integer" else (int, float)):  # pylint: disable=unidiomatic-typecheck
            return ["%s: %r is not an %s" % (variable, value, kind)]
        low, high = question.get("min"), question.get("max")
        if low not in ("", None) and value < low or high not in ("", None) and value > high:
            return ["%s: %r outside min..max" % (variable, value)]
        return []
    if kind == "multiselect":
        if not isinstance(value, list):
            return ["'%s' value is expected to be a list." % variable]
        return ["%s: %r is not a choice" % (variable, item) for item in value if item not in _choices(question)]
    return [] if value in _choices(question) else ["%s: %r is not a choice" % (variable, value)]


def defaults_applied(question):
    """Whether AWX applies the question's default when a launch does not answer it (it does when the default validates)."""
    return question.get("default") is not None and not answer_errors(question, {question["variable"]: question["default"]})


class FakeAwx:
    """The objects, the requests, and the HTTP server on 127.0.0.1."""

    def __init__(self):
        self.lock = threading.Lock()
        self.objects = {}
        self.surveys = {}
        self.associated = {}
        self.requests = []
        self.last_id = 0
        self.create("organizations", {"name": "Default"})
        for name, kind in (("Machine", "ssh"), ("Source Control", "scm"), ("Container Registry", "registry")):
            self.create("credential_types", {"name": name, "kind": kind, "managed": True})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def create(self, collection, data):
        self.last_id += 1
        url = "%s%s/%d/" % (API, collection, self.last_id)
        item = dict(data, id=self.last_id, url=url, type=_type_of(collection), summary_fields={}, scm_revision="",
                    related={"survey_spec": url + "survey_spec/", "update": url + "update/", "copy": url + "copy/"})
        self.objects.setdefault(collection, {})[self.last_id] = item
        return item

    def named(self, collection, name, **fields):
        """The objects of a collection with that name (and those fields)."""
        return [item for item in self.objects.get(collection, {}).values()
                if item.get("name") == name and all(item.get(key) == value for key, value in fields.items())]

    def listing(self, collection, query):
        if collection == "unified_job_templates":
            items = [item for name in UNIFIED for item in self.objects.get(name, {}).values()]
        else:
            items = list(self.objects.get(collection, {}).values())
        either = dict((key[4:], values) for key, values in query.items() if key.startswith("or__"))
        for key, values in query.items():
            if not key.startswith("or__") and key not in ("page_size", "page", "order_by"):
                items = [item for item in items if str(item.get(key)) == values[0]]
        if either:
            items = [item for item in items if any(str(item.get(key)) == values[0] for key, values in either.items())]
        return {"count": len(items), "next": None, "previous": None, "results": items}

    def writes(self):
        """The requests that change something (the token's POST and DELETE aside)."""
        return [request for request in self.requests if request[0] != "GET" and "/tokens/" not in request[1]]

    def handle(self, method, path, query, body):
        """(status, JSON answer) of one request."""
        self.requests.append((method, path, query, body))
        if path in ("/api/", API):
            return 200, {"current_version": API, "available_versions": {"v2": API}}
        if path in (API + "ping/", API + "config/"):
            return 200, {"version": "24.6.1", "ha": False}
        if path.startswith(API + "tokens/"):
            return (201, dict(TOKEN)) if method == "POST" else (204, None)
        parts = path[len(API):].strip("/").split("/")
        if len(parts) == 1:
            return self.handle_list(method, parts[0], query, body)
        collection, ident = parts[0], int(parts[1])
        item = self.objects.get(collection, {}).get(ident)
        if item is None:
            return 404, {"detail": "Not found."}
        if len(parts) == 2:
            return self.handle_item(method, collection, item, body)
        return self.handle_sub(method, item, parts[2], body)

    def handle_list(self, method, collection, query, body):
        if method == "GET":
            return 200, self.listing(collection, query)
        if method == "POST":
            return 201, self.create(collection, body)
        return 405, {"detail": "Method not allowed."}

    def handle_item(self, method, collection, item, body):
        if method == "GET":
            return 200, item
        if method == "PATCH":
            item.update(body)
            return 200, item
        if method == "DELETE":
            del self.objects[collection][item["id"]]
            return 204, None
        return 405, {"detail": "Method not allowed."}

    def handle_sub(self, method, item, sub, body):
        if sub == "survey_spec":
            if method == "GET":
                return 200, self.surveys.get(item["url"], {})
            if method == "DELETE":
                self.surveys.pop(item["url"], None)
                return 200, {}
            errors = survey_spec_errors(body)
            if errors:
                return 400, {"error": "; ".join(errors)}
            self.surveys[item["url"]] = body
            return 200, {}
        if sub not in ASSOCIATIONS:
            return 404, {"detail": "Not found."}
        ids = self.associated.setdefault((item["url"], sub), [])
        if method == "GET":
            objects = self.objects.get(ASSOCIATIONS[sub], {})
            return 200, {"count": len(ids), "next": None, "previous": None, "results": [objects[ident] for ident in ids]}
        if body.get("disassociate"):
            ids.remove(body["id"])
        elif body["id"] not in ids:
            ids.append(body["id"])
        return 204, None


def _handler(awx):
    class Handler(BaseHTTPRequestHandler):
        """Hands every request to the FakeAwx, answers JSON with AWX's product headers."""

        def log_message(self, *args):  # pylint: disable=arguments-differ
            pass

        def _answer(self):
            url = urlparse(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw.strip() else {}
            with awx.lock:
                status, answer = awx.handle(self.command, url.path, parse_qs(url.query), body)
            data = b"" if answer is None else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-API-Product-Name", "AWX")
            self.send_header("X-API-Product-Version", "24.6.1")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _answer

    return Handler

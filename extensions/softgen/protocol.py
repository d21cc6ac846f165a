"""The JSON-RPC 2.0 layer every TRex RPC area shares: error codes and replies, event types, typed parameters.

Error codes and the ``specific_err`` of error replies follow TRex's
``src/rpc-server/trex_rpc_jsonrpc_v2_parser.cpp``; the event types are those of
its publisher (``trex-event``); :func:`_param` is the ``parse_int``,
``parse_string``, ... of its RPC commands.
"""
import random
import string

ERR_PARSE = -32700
ERR_INVALID_REQ = -32600
ERR_METHOD_NOT_FOUND = -32601
ERR_INVALID_PARAMS = -32602
ERR_INTERNAL = -32603
ERR_EXECUTE = -32000

EV_PORT_STARTED = 0
EV_PORT_STOPPED = 1
EV_PORT_PAUSED = 2
EV_PORT_RESUMED = 3
EV_PORT_JOB_DONE = 4
EV_PORT_ACQUIRED = 5
EV_PORT_RELEASED = 6
EV_PORT_ERROR = 7
EV_PORT_ATTR_CHG = 8
EV_SERVER_STOPPED = 100
# the profile events of TRex's dynamic profiles (softgen has one profile per port, "_")
PROFILE_EVENTS = {EV_PORT_STARTED: 10, EV_PORT_STOPPED: 11, EV_PORT_PAUSED: 12, EV_PORT_RESUMED: 13, EV_PORT_JOB_DONE: 14}
DEFAULT_PROFILE = "_"


class RpcError(Exception):
    """An error reply: ``code`` is the JSON-RPC code, ``specific`` TRex's ``specific_err``."""

    MESSAGES = {ERR_INVALID_PARAMS: "Bad paramters for method", ERR_EXECUTE: "Failed To Execute Method",
                ERR_INTERNAL: "Internal Server Error"}

    def __init__(self, code, specific):
        super().__init__(specific)
        self.code = code
        self.specific = specific

    def to_json(self):
        return {"code": self.code, "message": self.MESSAGES.get(self.code, "error"), "specific_err": self.specific}


def parse_err(msg):
    return RpcError(ERR_INVALID_PARAMS, msg)


def exec_err(msg):
    return RpcError(ERR_EXECUTE, msg)


_JSON_TYPES = {int: "int", float: "real", str: "string", bool: "boolean", list: "array", dict: "object", type(None): "null"}


def _param(params, name, kind, default=Ellipsis):
    """TRex-style typed parameter lookup (``parse_int``, ``parse_string``, ...)."""
    if name not in params or params[name] is None:
        if default is not Ellipsis:
            return default
        raise parse_err("field '{0}' is missing".format(name))
    value = params[name]
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "uint": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
        "double": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "string": isinstance(value, str),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }[kind]
    if not ok:
        raise parse_err("'{0}' is '{1}', expecting '{2}'".format(name, _JSON_TYPES.get(type(value), "unknown"), kind))
    return value


def _token():
    return "".join(random.choice(string.ascii_letters + string.digits) for _i in range(8))

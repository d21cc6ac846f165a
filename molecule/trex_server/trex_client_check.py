"""Connect the unmodified TRex client (trex_stl_lib) to a running server and
prove it answers: version, system info, ping, acquire every port, release.

Usage: python trex_client_check.py RPC_PORT PUB_PORT EXPECTED_PORT_COUNT
Prints one JSON object; exits non-zero on any failure.
"""
import json
import sys

from trex_stl_lib.api import LoggerApi, STLClient


def main():
    rpc, pub, expected = (int(arg) for arg in sys.argv[1:4])
    client = STLClient(server="127.0.0.1", sync_port=rpc, async_port=pub, verbose_level=LoggerApi.VERBOSE_QUIET)
    client.connect()
    try:
        version = client.get_server_version()
        system = client.get_server_system_info()
        ping = client.ping_rpc_server()
        ports = list(range(client.get_port_count()))
        client.acquire(ports=ports, force=True)
        acquired = client.get_acquired_ports()
        client.release(ports=ports)
        released = client.get_acquired_ports()
    finally:
        client.disconnect()
    result = {"version": version.get("version"), "ports": len(ports), "drivers": sorted({p.get("driver") for p in system.get("ports", [])}),
              "ping": bool(ping), "acquired": acquired, "released": released}
    print(json.dumps(result))
    return 0 if len(ports) == expected and acquired == ports and not released else 1


if __name__ == "__main__":
    sys.exit(main())

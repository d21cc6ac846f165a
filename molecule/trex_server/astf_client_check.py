"""Connect TRex's own ASTF client (TRex v3's, PyPI's lbr-trex-client) to a running server in ASTF mode and prove it
answers: version and mode, the ports, acquire the context (reset), release.

Usage: python astf_client_check.py RPC_PORT PUB_PORT EXPECTED_PORT_COUNT
Prints one JSON object; exits non-zero on any failure.
"""
import json
import sys
import warnings


def main():
    rpc, pub, expected = (int(arg) for arg in sys.argv[1:4])
    warnings.simplefilter("ignore")
    import lbr_trex_client  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from trex.astf.api import ASTFClient  # pylint: disable=import-outside-toplevel,import-error
    client = ASTFClient(server="127.0.0.1", sync_port=rpc, async_port=pub, verbose_level="error")
    client.connect()
    try:
        version = client.get_server_version()
        ports = client.get_all_ports()
        client.reset()
        acquired = client.get_acquired_ports()
        states = client.get_profiles_state()
    finally:
        client.disconnect()
    result = {"version": version.get("version"), "mode": version.get("mode"), "ports": len(ports), "acquired": acquired,
              "profiles": states}
    print(json.dumps(result))
    return 0 if len(ports) == expected and acquired == list(ports) and version.get("mode") == "ASTF" else 1


if __name__ == "__main__":
    sys.exit(main())

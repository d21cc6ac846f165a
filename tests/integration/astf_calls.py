"""TRex's ASTF client (TRex v3's, as PyPI's ``lbr-trex-client`` ships it) against a server, the calls of TRex's ASTF tutorial.

Run as ``python astf_calls.py --rpc PORT --pub PORT --clients FIRST-LAST --servers FIRST-LAST [--mult M] [--duration S]``;
prints one JSON object: the profile's client and server counters after a run (``traffic``), the profile states seen,
and what the server answered to what it must refuse. It runs in a process of its own, as ``trex_calls.py`` does: the
client brings its own scapy.

The profile is the shape of TRex's ``astf/http_simple.py`` (a GET, a 200 answer) with a UDP request/answer template
beside it, written here with the client's own classes.
"""
import argparse
import json
import sys
import warnings

HTTP_REQUEST = b"GET /3384 HTTP/1.1\r\nHost: 22.0.0.3\r\nConnection: Keep-Alive\r\nUser-Agent: Mozilla/4.0\r\n\r\n"
HTTP_RESPONSE = b"HTTP/1.1 200 OK\r\nServer: Microsoft-IIS/6.0\r\nContent-Type: text/html\r\nContent-Length: 32\r\n\r\n<html><pre>**********</pre></html>"


def profile(astf, clients, servers, http_port, udp_port):
    """TCP on ``http_port`` (the request, the response) at 2 connections/s and UDP on ``udp_port`` at 1 (x the multiplier)."""
    ip_gen = astf.ASTFIPGen(glob=astf.ASTFIPGenGlobal(ip_offset="1.0.0.0"),
                            dist_client=astf.ASTFIPGenDist(ip_range=clients, distribution="seq"),
                            dist_server=astf.ASTFIPGenDist(ip_range=servers, distribution="seq"))
    http_c, http_s = astf.ASTFProgram(), astf.ASTFProgram()
    http_c.send(HTTP_REQUEST)
    http_c.recv(len(HTTP_RESPONSE))
    http_s.recv(len(HTTP_REQUEST))
    http_s.send(HTTP_RESPONSE)
    udp_c, udp_s = astf.ASTFProgram(stream=False), astf.ASTFProgram(stream=False)
    udp_c.send_msg(b"query")
    udp_c.recv_msg(1)
    udp_s.recv_msg(1)
    udp_s.send_msg(b"answer")
    templates = [astf.ASTFTemplate(client_template=astf.ASTFTCPClientTemplate(program=http_c, ip_gen=ip_gen, cps=2, port=http_port),
                                   server_template=astf.ASTFTCPServerTemplate(program=http_s, assoc=astf.ASTFAssociationRule(port=http_port)),
                                   tg_name="http"),
                 astf.ASTFTemplate(client_template=astf.ASTFTCPClientTemplate(program=udp_c, ip_gen=ip_gen, cps=1, port=udp_port),
                                   server_template=astf.ASTFTCPServerTemplate(program=udp_s, assoc=astf.ASTFAssociationRule(port=udp_port)),
                                   tg_name="udp")]
    return astf.ASTFProfile(default_ip_gen=ip_gen, templates=templates)


def refused(call):
    try:
        call()
    except Exception as error:  # pylint: disable=broad-except
        return str(error)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rpc", type=int, required=True)
    parser.add_argument("--pub", type=int, required=True)
    parser.add_argument("--clients", required=True)
    parser.add_argument("--servers", required=True)
    parser.add_argument("--mult", type=float, default=50)
    parser.add_argument("--duration", type=float, default=2)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import lbr_trex_client  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    from trex.astf import api as astf  # pylint: disable=import-outside-toplevel,import-error
    client = astf.ASTFClient(server="127.0.0.1", sync_port=args.rpc, async_port=args.pub, verbose_level="error")
    client.connect()
    out = {}
    try:
        client.reset()
        out["latency_refused"] = None
        client.load_profile(profile(astf, args.clients.split("-"), args.servers.split("-"), 80, 5353))
        client.clear_stats()
        out["latency_refused"] = refused(lambda: client.start(mult=args.mult, duration=args.duration, latency_pps=100))
        client.start(mult=args.mult, duration=args.duration, nc=False)
        out["states"] = [dict(client.get_profiles_state())]
        client.wait_on_traffic(timeout=args.duration + 30)
        out["states"].append(dict(client.get_profiles_state()))
        stats = client.get_stats()
        out["traffic"] = stats["traffic"]
        out["tg_names"] = client.get_tg_names()
        out["tg_http"] = client.get_traffic_tg_stats(["http"])
        client.clear_profile()
        out["states"].append(dict(client.get_profiles_state()))
    finally:
        client.disconnect()
    json.dump(out, sys.stdout, default=str)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

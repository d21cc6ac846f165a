"""A port's network interface as its worker sees it inside the port's namespace: MAC address and kernel counters.

What ``get_system_info``/``get_port_status`` report as the port's MAC
(``SIOCGIFHWADDR``) and what ``get_port_stats`` counts as received
(``/proc/net/dev``), for :mod:`softgen.portworker`.
"""
import fcntl
import socket
import struct

SIOCGIFHWADDR = 0x8927


def mac_to_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def mac_to_str(raw):
    return ":".join("%02x" % b for b in raw)


def get_mac(iface):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        info = fcntl.ioctl(sock.fileno(), SIOCGIFHWADDR, struct.pack("256s", iface.encode()[:15]))
    finally:
        sock.close()
    return mac_to_str(info[18:24])


def read_if_counters(iface):
    """(rx_bytes, rx_packets, tx_bytes, tx_packets, tx_dropped) of ``iface`` in this process's namespace."""
    with open("/proc/self/net/dev", encoding="ascii") as handle:
        for line in handle:
            if ":" not in line:
                continue
            name, data = line.split(":", 1)
            if name.strip() == iface:
                fields = data.split()
                return int(fields[0]), int(fields[1]), int(fields[8]), int(fields[9]), int(fields[11])
    return 0, 0, 0, 0, 0

"""A UDP peer on loopback for the tests of the netns modules' client programs."""

import socket
import threading


class UdpPeer(threading.Thread):
    """Answers each datagram with ``answer(data)`` (None: swallows it), until STOP, 10 s of silence or close()."""

    def __init__(self, answer):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(10)
        self.port = self.sock.getsockname()[1]
        self.answer = answer
        self.seen = []  # (datagram, source port)

    def run(self):
        try:
            while True:
                data, peer = self.sock.recvfrom(65536)
                if data == b"STOP":
                    break
                self.seen.append((data, peer[1]))
                reply = self.answer(data)
                if reply is not None:
                    self.sock.sendto(reply, peer)
        except OSError:  # the timeout, or the test closing the socket
            pass
        finally:
            self.sock.close()

    def first_copy(self, data):
        """Whether ``data`` arrived for the first time (the datagram just seen was its only copy so far)."""
        return [seen for seen, _port in self.seen].count(data) == 1

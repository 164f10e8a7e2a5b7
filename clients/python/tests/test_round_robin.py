"""Several servers behind one client (docs/deploy.md): calls spread over every address of the target.

Self-contained, loopback only: two gRPC servers answer ScoreBatch with their own name, and the client is
pointed at them three ways — a list of "IP:PORT" targets, a static ``ipv4:`` list, and ``dns:///NAME:PORT``
where NAME has two A records (127.0.0.1 and 127.0.0.2, as a Kubernetes headless Service has one per
ready pod). The last asks a small DNS server of the test's own on 127.0.0.1, through gRPC's c-ares
resolver (``dns://127.0.0.1:PORT/NAME:PORT``: the authority is the DNS server to ask).
"""

import os
import socket
import struct
import sys
import threading
import unittest
from concurrent import futures

os.environ.setdefault("GRPC_DNS_RESOLVER", "ares")  # the resolver that honours a dns:// authority

import grpc  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from minedit_client import MineditClient  # noqa: E402
from minedit_client._gen.minedit.v1 import reward_pb2 as pb  # noqa: E402
from minedit_client.client import _channel_options, channel_target, RetryPolicy  # noqa: E402

NAME = "minedit-front.minedit.test"


def start_server(host: str, port: int, label: str):
    """A gRPC server on host:port whose ScoreBatch answers every rollout with detail=label."""

    def score_batch(request, _context):
        return pb.ScoreBatchResponse(
            results=[pb.RolloutResult(id=r.id, verdict=pb.VERDICT_PASSED, reward=0.1, detail=label) for r in request.rollouts]
        )

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    handler = grpc.method_handlers_generic_handler(
        "minedit.v1.RewardService",
        {
            "ScoreBatch": grpc.unary_unary_rpc_method_handler(
                score_batch,
                request_deserializer=pb.ScoreBatchRequest.FromString,
                response_serializer=pb.ScoreBatchResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise RuntimeError(f"cannot listen on {host}:{port}")
    server.start()
    return server, bound


class TinyDns:
    """Answers A queries for NAME with 127.0.0.1 and 127.0.0.2, anything else with no records, over UDP."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.queries = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                data, peer = self.sock.recvfrom(4096)
            except OSError:
                return
            reply = self._answer(data)
            if reply is not None:
                self.sock.sendto(reply, peer)

    def _answer(self, data: bytes):
        if len(data) < 12:
            return None
        (ident, _flags, qdcount) = struct.unpack("!HHH", data[:6])
        if qdcount != 1:
            return None
        labels, at = [], 12
        while data[at] != 0:
            length = data[at]
            labels.append(data[at + 1 : at + 1 + length].decode("ascii").lower())
            at += 1 + length
        question_end = at + 5
        qtype, _qclass = struct.unpack("!HH", data[at + 1 : question_end])
        name = ".".join(labels)
        self.queries.append((name, qtype))
        answers = b""
        count = 0
        if name == NAME and qtype == 1:  # A
            for address in ("127.0.0.1", "127.0.0.2"):
                # name = pointer to the question (offset 12), type A, class IN, TTL 1 s, 4 bytes
                answers += struct.pack("!HHHIH", 0xC00C, 1, 1, 1, 4) + socket.inet_aton(address)
                count += 1
        rcode = 0 if name == NAME else 3  # NXDOMAIN for the TXT / SRV names gRPC also asks about
        header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, count, 0, 0)
        return header + data[12:question_end] + answers

    def close(self) -> None:
        self.sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RoundRobinTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.servers = []
        # Two servers on distinct ports of 127.0.0.1, and two on one port of 127.0.0.1 and 127.0.0.2.
        a, cls.port_a = start_server("127.0.0.1", 0, "A")
        b, cls.port_b = start_server("127.0.0.1", 0, "B")
        cls.shared_port = free_port()
        c, _ = start_server("127.0.0.1", cls.shared_port, "C")
        d, _ = start_server("127.0.0.2", cls.shared_port, "D")
        cls.servers = [a, b, c, d]
        cls.dns = TinyDns()

    @classmethod
    def tearDownClass(cls) -> None:
        for server in cls.servers:
            server.stop(None)
        cls.dns.close()

    def answered_by(self, target, calls: int = 20):
        with MineditClient(target, timeout=10) as client:
            labels = set()
            for i in range(calls):
                [result] = client.score_batch([{"id": f"r{i}", "completion": "x", "task_id": "t"}])
                labels.add(result.detail)
            return labels

    def test_a_list_of_addresses_spreads_over_all(self):
        self.assertEqual(self.answered_by([f"127.0.0.1:{self.port_a}", f"127.0.0.1:{self.port_b}"]), {"A", "B"})

    def test_a_static_ipv4_list_spreads_over_all(self):
        self.assertEqual(self.answered_by(f"ipv4:127.0.0.1:{self.port_a},127.0.0.1:{self.port_b}"), {"A", "B"})

    def test_dns_name_with_two_addresses_spreads_over_both(self):
        target = f"dns://127.0.0.1:{self.dns.port}/{NAME}:{self.shared_port}"
        self.assertEqual(self.answered_by(target), {"C", "D"})
        self.assertIn((NAME, 1), self.dns.queries)

    def test_pick_first_would_not(self):
        # Without the policy the same DNS target sends every call to one server: what round_robin fixes.
        target = f"dns://127.0.0.1:{self.dns.port}/{NAME}:{self.shared_port}"
        client = MineditClient(target, timeout=10, options=[("grpc.lb_policy_name", "pick_first")])
        try:
            labels = {
                client.score_batch([{"id": f"p{i}", "completion": "x", "task_id": "t"}])[0].detail for i in range(10)
            }
        finally:
            client.close()
        self.assertEqual(len(labels), 1)

    def test_which_targets_get_round_robin(self):
        retry = RetryPolicy()
        policy = lambda target: dict(_channel_options(retry, (), target)).get("grpc.lb_policy_name")  # noqa: E731
        self.assertEqual(policy("dns:///minedit-front.minedit.svc.cluster.local:50051"), "round_robin")
        self.assertEqual(policy("minedit-front.minedit.svc:50051"), "round_robin")
        self.assertEqual(policy("ipv4:10.0.0.1:50051,10.0.0.2:50051"), "round_robin")
        self.assertIsNone(policy("127.0.0.1:50051"))
        self.assertIsNone(policy("[::1]:50051"))
        self.assertIsNone(policy("unix:/run/minedit.sock"))
        self.assertEqual(channel_target(["[::1]:1", "[::2]:2"]), "ipv6:[::1]:1,[::2]:2")
        with self.assertRaises(ValueError):
            channel_target(["minedit-front:50051", "127.0.0.1:50051"])
        with self.assertRaises(ValueError):
            channel_target(["127.0.0.1:1", "[::1]:1"])


if __name__ == "__main__":
    unittest.main()

"""The client's TLS option against a TLS gRPC server (a self-signed certificate made for the test run).
The server behind it scores with a FAKE scorer (PASSED, 0.1, for a completion "verdict:PASSED"): what is
tested here is the transport, the real scoring is in test_client.py."""

import asyncio
import os
import unittest

import grpc

import support  # noqa: F401 - puts minedit_client on sys.path
from minedit_client import AsyncMineditClient, MineditClient, MineditError, RetryPolicy

TARGET = os.environ["MINEDIT_TLS_TARGET"]
CA = os.environ["MINEDIT_TLS_CA"]
ROLLOUT = {"id": "t", "completion": "verdict:PASSED", "task_id": "any"}


class TlsTest(unittest.TestCase):
    def test_root_certificates_from_a_path_or_bytes(self) -> None:
        with MineditClient(TARGET, root_certificates=CA, timeout=30) as client:
            self.assertEqual(client.health(), "SERVING")
            [result] = client.score_batch([ROLLOUT])
            self.assertEqual((result.verdict, result.reward), ("PASSED", 0.1))

        async def main() -> None:
            with open(CA, "rb") as f:
                pem = f.read()
            async with AsyncMineditClient(TARGET, root_certificates=pem, timeout=30) as client:
                [result] = await client.score_batch([ROLLOUT])
                self.assertEqual(result.reward, 0.1)

        asyncio.run(main())

    def test_plaintext_client_cannot_talk_to_a_tls_server(self) -> None:
        with MineditClient(TARGET, retry=RetryPolicy(max_attempts=1), timeout=10) as client:
            with self.assertRaises(MineditError) as caught:
                client.score_batch([ROLLOUT])
        self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)


if __name__ == "__main__":
    unittest.main()

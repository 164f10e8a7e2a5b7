"""MineditClient and AsyncMineditClient against the real server: batch, stream, deadline, retries on
UNAVAILABLE, token auth, health, errors."""

import asyncio
import socket
import threading
import time
import unittest

import grpc

from support import BROKEN_INLINE_TASK, CORRUPTED, GOLD, SLEEPER, TARGET, TASK_ID, TOKEN, fence, free_port
from minedit_client import AsyncMineditClient, MineditClient, MineditError, RetryPolicy, Rollout


class DelayedProxy:
    """A TCP forwarder to the real server that starts listening only after `delay` seconds: a server that
    is not up yet when the client first calls. With `answer_after`, each connection is accepted at once
    but relayed only that many seconds later: a server whose event loop is busy when a client connects."""

    def __init__(self, port: int, upstream: str, delay: float, answer_after: float = 0.0) -> None:
        self.port, self.delay, self.answer_after = port, delay, answer_after
        host, upstream_port = upstream.rsplit(":", 1)
        self.upstream = (host, int(upstream_port))
        self.stopped = threading.Event()
        # Without a delay the port listens before the constructor returns: bound in the thread, a client
        # calling at once could find nothing there (refused) on a loaded machine, a different scenario.
        self.listener = self._listen() if delay <= 0 else None
        threading.Thread(target=self._run, daemon=True).start()

    def _listen(self) -> socket.socket:
        return socket.create_server(("127.0.0.1", self.port))

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _run(self) -> None:
        if self.listener is None:
            if self.stopped.wait(self.delay):
                return
            self.listener = self._listen()
        while not self.stopped.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._relay, args=(client,), daemon=True).start()

    def _relay(self, client: socket.socket) -> None:
        if self.stopped.wait(self.answer_after):
            client.close()
            return
        upstream = socket.create_connection(self.upstream)
        threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
        self._pipe(upstream, client)

    def stop(self) -> None:
        self.stopped.set()
        if self.listener is not None:
            self.listener.close()


class SyncClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = MineditClient(TARGET, token=TOKEN, timeout=60)

    def tearDown(self) -> None:
        self.client.close()

    def test_score_batch_results_in_order_with_components(self) -> None:
        results = self.client.score_batch(
            [
                Rollout(id="gold", completion=GOLD, task_id=TASK_ID, group_id="g1"),
                {"id": "corrupted", "completion": CORRUPTED, "task_id": TASK_ID},
                {"id": "empty", "completion": "", "task_id": TASK_ID},
            ]
        )
        gold, corrupted, empty = results
        self.assertEqual([r.id for r in results], ["gold", "corrupted", "empty"])
        self.assertEqual((gold.verdict, gold.reward, gold.group_id), ("PASSED", 0.1, "g1"))
        self.assertTrue(gold.passed)
        self.assertEqual(gold.tests_passed, gold.tests_total)
        self.assertGreater(gold.tests_total, 0)
        self.assertEqual(gold.components.excess, 0.0)
        self.assertEqual((corrupted.verdict, corrupted.reward), ("FAILED_TESTS", -0.2))
        self.assertEqual(corrupted.components.d_model, 0.0)
        self.assertIn("test_", corrupted.detail)
        self.assertEqual((empty.verdict, empty.reward, empty.components), ("NO_CODE", -0.2, None))
        self.assertTrue(gold.reward_version.startswith("minedit-reward/"))
        print(f"sync batch: {[(r.id, r.verdict, r.reward) for r in results]}")

    def test_reward_override(self) -> None:
        [result] = self.client.score_batch(
            [{"id": "c", "completion": CORRUPTED, "task_id": TASK_ID}],
            reward_override={"failure_reward": -1.0},
        )
        self.assertEqual(result.reward, -1.0)

    def test_inline_task_with_unusable_tests_is_invalid_task_without_reward(self) -> None:
        [result] = self.client.score_batch(
            [{"id": "i", "completion": fence_f(), "task": BROKEN_INLINE_TASK}]
        )
        # Tests the harness cannot use are the task's fault: INVALID_TASK, masked like INFRA_ERROR.
        self.assertEqual(result.verdict, "INVALID_TASK")
        self.assertTrue(result.invalid_task)
        self.assertFalse(result.infra_error)
        self.assertTrue(result.masked)
        self.assertIsNone(result.reward)

    def test_inline_task_runtime_travels_and_an_unknown_one_is_refused(self) -> None:
        task = {
            "corrupted": "import json\ndef f(x):\n    return json.dumps(x) + ' '\n",
            "gold": "import json\ndef f(x):\n    return json.dumps(x)\n",
            "entry_point": "f",
            "tests": {"style": "assert", "code": "def check(f):\n    assert f([1]) == '[1]'\n"},
        }
        named_rollout = {"id": "n", "completion": fence(task["gold"]), "task": {**task, "runtime": "stdlib"}}
        [named] = self.client.score_batch([named_rollout])
        self.assertEqual(named.verdict, "PASSED")
        with self.assertRaises(MineditError) as raised:
            self.client.score_batch([{"id": "u", "completion": "x", "task": {**task, "runtime": "no-such-runtime"}}])
        self.assertEqual(raised.exception.field, "rollouts[0].task.runtime")
        self.assertIn('unknown runtime "no-such-runtime"', raised.exception.details)

    def test_score_stream_yields_every_result(self) -> None:
        rollouts = (
            {"id": f"s{i}", "completion": GOLD if i % 2 else CORRUPTED, "task_id": TASK_ID} for i in range(4)
        )
        results = {r.id: r for r in self.client.score_stream(rollouts)}
        self.assertEqual(sorted(results), ["s0", "s1", "s2", "s3"])
        self.assertEqual(results["s1"].verdict, "PASSED")
        self.assertEqual(results["s0"].verdict, "FAILED_TESTS")

    def test_deadline_exceeded(self) -> None:
        started = time.monotonic()
        with self.assertRaises(MineditError) as caught:
            self.client.score_batch([{"id": "slow", "completion": SLEEPER, "task_id": TASK_ID}], timeout=0.5)
        self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)
        self.assertLess(time.monotonic() - started, 3.0)

    def test_not_found_names_the_field(self) -> None:
        with self.assertRaises(MineditError) as caught:
            self.client.score_batch([{"id": "x", "completion": "", "task_id": "no/such/task"}])
        error = caught.exception
        self.assertEqual(error.code, grpc.StatusCode.NOT_FOUND)
        self.assertEqual((error.error_code, error.field), ("not_found", "rollouts[0].task_id"))
        self.assertIn("no/such/task", error.details)
        self.assertEqual(error.attempts, 1)

    def test_health(self) -> None:
        self.assertEqual(self.client.health(), "SERVING")
        self.assertEqual(self.client.health("minedit.v1.RewardService"), "SERVING")


class AuthTest(unittest.TestCase):
    def test_missing_and_wrong_tokens_are_unauthenticated(self) -> None:
        for token in (None, "wrong-token"):
            with MineditClient(TARGET, token=token, timeout=30) as client:
                with self.assertRaises(MineditError) as caught:
                    client.score_batch([{"id": "a", "completion": "", "task_id": TASK_ID}])
                self.assertEqual(caught.exception.code, grpc.StatusCode.UNAUTHENTICATED)
                self.assertEqual(caught.exception.attempts, 1)  # not retried
                # Health checks need no token (probes carry none).
                self.assertEqual(client.health(), "SERVING")


class RetryTest(unittest.TestCase):
    def test_nothing_listening_is_retried_then_unavailable(self) -> None:
        policy = RetryPolicy(max_attempts=3, initial_backoff_s=0.05, max_backoff_s=0.1)
        with MineditClient(f"127.0.0.1:{free_port()}", token=TOKEN, retry=policy, timeout=20) as client:
            with self.assertRaises(MineditError) as caught:
                client.score_batch([{"id": "a", "completion": "", "task_id": TASK_ID}])
        self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
        self.assertEqual(caught.exception.attempts, 3)

    def test_server_that_comes_up_later_is_reached_by_retrying(self) -> None:
        port = free_port()
        proxy = DelayedProxy(port, TARGET, delay=0.8)
        try:
            policy = RetryPolicy(max_attempts=20, initial_backoff_s=0.1, max_backoff_s=0.4)
            started = time.monotonic()
            with MineditClient(f"127.0.0.1:{port}", token=TOKEN, retry=policy, timeout=30) as client:
                [result] = client.score_batch([{"id": "late", "completion": GOLD, "task_id": TASK_ID}])
            self.assertEqual(result.verdict, "PASSED")
            self.assertGreaterEqual(time.monotonic() - started, 0.8)
        finally:
            proxy.stop()

    def test_server_slow_to_answer_a_new_connection_is_reached(self) -> None:
        # gRPC core gives a connection attempt max(the next backoff, grpc.min_reconnect_backoff_ms) to
        # finish its handshake (grpc/grpc src/core/client_channel/subchannel.cc at f80e3f8efd00,
        # ParseArgsForBackoffValues and StartConnectingLocked; the same in Debian's 1.51.1, which logs
        # "subchannel.cc ... backing off" with it); the
        # client once set that option to its 0.2 s retry backoff, so a server busy for longer than that
        # when a trainer connected (a GRPO step on 2 cores) failed every attempt: "tcp handshaker shutdown".
        port = free_port()
        proxy = DelayedProxy(port, TARGET, delay=0.0, answer_after=3.0)
        try:
            started = time.monotonic()
            with MineditClient(f"127.0.0.1:{port}", token=TOKEN, timeout=60) as client:
                [result] = client.score_batch([{"id": "busy", "completion": GOLD, "task_id": TASK_ID}])
            self.assertEqual(result.verdict, "PASSED")
            self.assertGreaterEqual(time.monotonic() - started, 3.0)
        finally:
            proxy.stop()

    def test_backoff_grows_and_is_jittered(self) -> None:
        policy = RetryPolicy(initial_backoff_s=1.0, max_backoff_s=3.0, multiplier=2.0, jitter=0.2)
        for attempt, base in ((2, 1.0), (3, 2.0), (4, 3.0), (9, 3.0)):
            waits = [policy.backoff(attempt) for _ in range(50)]
            self.assertTrue(all(base * 0.8 <= w <= base * 1.2 for w in waits), (attempt, waits[:3]))
            self.assertGreater(len(set(waits)), 1)


class AsyncClientTest(unittest.TestCase):
    def test_batch_stream_health_and_deadline(self) -> None:
        async def main() -> None:
            async with AsyncMineditClient(TARGET, token=TOKEN, timeout=60) as client:
                self.assertEqual(await client.health(), "SERVING")
                gold, corrupted = await client.score_batch(
                    [
                        {"id": "g", "completion": GOLD, "task_id": TASK_ID},
                        {"id": "c", "completion": CORRUPTED, "task_id": TASK_ID},
                    ]
                )
                self.assertEqual((gold.verdict, gold.reward), ("PASSED", 0.1))
                self.assertEqual((corrupted.verdict, corrupted.reward), ("FAILED_TESTS", -0.2))

                async def rollouts():
                    for i in range(3):
                        await asyncio.sleep(0)
                        yield {"id": f"a{i}", "completion": GOLD, "task_id": TASK_ID}

                streamed = [r async for r in client.score_stream(rollouts())]
                self.assertEqual(sorted(r.id for r in streamed), ["a0", "a1", "a2"])
                self.assertTrue(all(r.verdict == "PASSED" for r in streamed))

                with self.assertRaises(MineditError) as caught:
                    await client.score_batch([{"id": "slow", "completion": SLEEPER, "task_id": TASK_ID}], timeout=0.5)
                self.assertEqual(caught.exception.code, grpc.StatusCode.DEADLINE_EXCEEDED)

            policy = RetryPolicy(max_attempts=2, initial_backoff_s=0.05)
            async with AsyncMineditClient(f"127.0.0.1:{free_port()}", retry=policy, timeout=20) as dead:
                with self.assertRaises(MineditError) as caught:
                    await dead.score_batch([{"id": "a", "completion": "", "task_id": TASK_ID}])
                self.assertEqual((caught.exception.code, caught.exception.attempts), (grpc.StatusCode.UNAVAILABLE, 2))

        asyncio.run(main())


def fence_f() -> str:
    return "```python\ndef f(x):\n    return x\n```"


if __name__ == "__main__":
    unittest.main()

"""CoalescingScorer against the real server: many concurrent one-rollout callers (threads, asyncio tasks
on several loops, forked processes) share a few ScoreBatch calls, each caller gets its own result, and a
bad rollout fails only its own caller."""

import asyncio
import os
import threading
import unittest

from support import CORRUPTED, GOLD, INFRA_TASK_ID, TARGET, TASK_ID, TOKEN
from minedit_client import CoalescingScorer, MineditClient, MineditError, Rollout, coalescing_settings_from_env


def factory() -> MineditClient:
    return MineditClient(TARGET, token=TOKEN, timeout=120)


def rollout(i: int, completion: str = GOLD, task_id: str = TASK_ID) -> Rollout:
    return Rollout(id=f"caller-{i}", completion=completion, task_id=task_id, group_id=f"g{i % 4}")


class CoalescingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.scorer = CoalescingScorer(factory, window_s=0.05, max_rollouts=512)

    def tearDown(self) -> None:
        self.scorer.close()

    def test_concurrent_threads_share_a_few_batches_and_get_their_own_results(self) -> None:
        results = {}

        def call(i: int) -> None:
            completion = GOLD if i % 2 == 0 else CORRUPTED
            results[i] = self.scorer.score(rollout(i, completion))

        threads = [threading.Thread(target=call, args=(i,)) for i in range(48)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 48)
        for i, result in results.items():
            self.assertEqual(result.id, f"caller-{i}")
            self.assertEqual(result.group_id, f"g{i % 4}")
            self.assertEqual(result.verdict, "PASSED" if i % 2 == 0 else "FAILED_TESTS")
        self.assertEqual(self.scorer.stats.rollouts, 48)
        self.assertLessEqual(self.scorer.stats.calls, 4, self.scorer.stats)
        # Identical completions in one batch run once on the server.
        self.assertTrue(any(r.cached for r in results.values()))

    def test_results_equal_scoring_each_rollout_alone(self) -> None:
        alone = factory()
        try:
            for completion in (GOLD, CORRUPTED, "no code here", "```python\ndef broken(:\n```"):
                expected = alone.score_batch([rollout(0, completion)])[0]
                got = self.scorer.score(rollout(0, completion))
                self.assertEqual(
                    (got.verdict, got.reward, got.components),
                    (expected.verdict, expected.reward, expected.components),
                )
        finally:
            alone.close()


class AsyncCallersTest(unittest.TestCase):
    def test_asyncio_gather_on_two_event_loops_at_once(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.05)
        outcomes = {}

        def loop_worker(name: str) -> None:
            async def main():
                return await asyncio.gather(*(scorer.score_async(rollout(i)) for i in range(16)))

            outcomes[name] = asyncio.run(main())

        threads = [threading.Thread(target=loop_worker, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        scorer.close()
        for name in ("a", "b"):
            self.assertEqual([r.verdict for r in outcomes[name]], ["PASSED"] * 16)
            self.assertEqual([r.id for r in outcomes[name]], [f"caller-{i}" for i in range(16)])
        self.assertLessEqual(scorer.stats.calls, 3, scorer.stats)


class LimitsAndErrorsTest(unittest.TestCase):
    def test_max_rollouts_cuts_batches(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.2, max_rollouts=4)
        futures = [scorer.submit(rollout(i)) for i in range(10)]
        self.assertEqual([f.result(timeout=120).verdict for f in futures], ["PASSED"] * 10)
        scorer.close()
        self.assertEqual(scorer.stats.calls, 3)

    def test_window_zero_sends_at_once(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.0)
        self.assertEqual(scorer.score(rollout(0)).verdict, "PASSED")
        scorer.close()
        self.assertEqual((scorer.stats.calls, scorer.stats.rollouts), (1, 1))

    def test_an_unknown_task_fails_only_its_own_caller(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.2)
        good = [scorer.submit(rollout(i)) for i in range(3)]
        bad = scorer.submit(rollout(9, task_id="no/such/task"))
        for future in good:
            self.assertEqual(future.result(timeout=120).verdict, "PASSED")
        with self.assertRaises(MineditError) as caught:
            bad.result(timeout=120)
        self.assertIn("no/such/task", str(caught.exception))
        scorer.close()

    def test_infra_errors_are_results_not_errors(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.05)
        result = scorer.score(rollout(0, task_id=INFRA_TASK_ID))
        scorer.close()
        self.assertEqual(result.verdict, "INFRA_ERROR")
        self.assertIsNone(result.reward)

    def test_a_dead_server_fails_every_caller_of_the_batch(self) -> None:
        scorer = CoalescingScorer(lambda: MineditClient("127.0.0.1:9", timeout=2), window_s=0.05)
        futures = [scorer.submit(rollout(i)) for i in range(3)]
        for future in futures:
            with self.assertRaises(MineditError):
                future.result(timeout=60)
        scorer.close()

    def test_a_cancelled_caller_leaves_its_batch_and_the_others_are_scored(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.3)
        gone = scorer.submit(rollout(0))
        kept = scorer.submit(rollout(1))
        self.assertTrue(gone.cancel())
        self.assertEqual(kept.result(timeout=60).verdict, "PASSED")
        scorer.close()
        self.assertEqual(scorer.stats.rollouts, 1)

    def test_asyncio_wait_for_timeouts_do_not_stall_the_batch(self) -> None:
        # verl's rate_limited manager wraps each call in asyncio.wait_for: a timeout cancels that call.
        scorer = CoalescingScorer(factory, window_s=0.3)

        async def main():
            impatient = asyncio.wait_for(scorer.score_async(rollout(0)), timeout=0.05)
            patient = scorer.score_async(rollout(1))
            return await asyncio.gather(impatient, patient, return_exceptions=True)

        first, second = asyncio.run(main())
        scorer.close()
        self.assertIsInstance(first, asyncio.TimeoutError)
        self.assertEqual(second.verdict, "PASSED")

    def test_close_sends_what_is_queued(self) -> None:
        scorer = CoalescingScorer(factory, window_s=30.0)
        future = scorer.submit(rollout(0))
        scorer.close()
        self.assertEqual(future.result(timeout=1).verdict, "PASSED")
        with self.assertRaises(RuntimeError):
            scorer.submit(rollout(1))

    def test_a_forked_child_starts_afresh(self) -> None:
        scorer = CoalescingScorer(factory, window_s=0.05)
        self.assertEqual(scorer.score(rollout(0)).verdict, "PASSED")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: its own threads and channel
            try:
                verdict = scorer.score(rollout(1), timeout=60).verdict
                os.write(write, verdict.encode())
            finally:
                os._exit(0)
        os.close(write)
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.read(read, 100).decode(), "PASSED")
        self.assertEqual(status, 0)
        scorer.close()

    def test_settings_from_the_environment(self) -> None:
        os.environ["MINEDIT_COALESCE_MS"] = "5"
        os.environ["MINEDIT_COALESCE_MAX"] = "64"
        try:
            self.assertEqual(coalescing_settings_from_env(), {"window_s": 0.005, "max_rollouts": 64})
            self.assertEqual(coalescing_settings_from_env(max_rollouts=8)["max_rollouts"], 8)
        finally:
            del os.environ["MINEDIT_COALESCE_MS"], os.environ["MINEDIT_COALESCE_MAX"]


if __name__ == "__main__":
    unittest.main()

"""The trainer adapters against the real server, called with the argument shapes each trainer passes
(shapes from the trainers' documentation): TRL GRPOTrainer reward functions, verl custom reward
functions (per sample and batch reward manager), verifiers rubric reward functions."""

import asyncio
import inspect
import os
import unittest

from support import CORRUPTED, GOLD, INFRA_TASK_ID, TARGET, TASK, TASK_ID, TOKEN
from minedit_client import AsyncMineditClient, RolloutResult, Timings
from minedit_client._adapt import completion_text, masked_rewards
from minedit_client.trl import METRIC_KEYS, minedit_reward_func as trl_reward_func
from minedit_client import verl as minedit_verl
from minedit_client.verifiers import MineditInfraError, minedit_metric_funcs, minedit_reward_func as vf_reward_func

# The adapters read the server's address from the environment, as they do inside a trainer.
os.environ["MINEDIT_TARGET"] = TARGET
os.environ["MINEDIT_TOKEN"] = TOKEN

PROMPT = "Fix the bug in this program with the smallest change:\n" + TASK["corrupted"]


class CountingClient(AsyncMineditClient):
    calls = 0

    async def score_batch(self, rollouts, **kwargs):  # type: ignore[override]
        CountingClient.calls += 1
        return await super().score_batch(rollouts, **kwargs)


class TrlTest(unittest.TestCase):
    def setUp(self) -> None:
        CountingClient.calls = 0
        self.reward = trl_reward_func(client=lambda: CountingClient(TARGET, token=TOKEN, timeout=60))
        self.metrics, self.columns = {}, {}

    def call(self, prompts, completions, **columns):
        # What GRPOTrainer passes: prompts, completions, completion_ids, trainer_state, the log hooks and
        # every dataset column but `prompt`, one value per sample.
        return asyncio.run(
            self.reward(
                prompts=prompts,
                completions=completions,
                completion_ids=[[1, 2, 3]] * len(completions),
                trainer_state=None,
                log_metric=lambda name, value: self.metrics.__setitem__(name, value),
                log_extra=lambda column, values: self.columns.__setitem__(column, values),
                **columns,
            )
        )

    def test_is_an_async_function_named_for_trl_logs(self) -> None:
        self.assertTrue(inspect.iscoroutinefunction(self.reward))
        self.assertEqual(self.reward.__name__, "minedit")
        self.assertEqual(trl_reward_func(name="edit_reward").__name__, "edit_reward")

    def test_standard_format_one_batch_none_for_infra_error(self) -> None:
        rewards = self.call(
            [PROMPT, PROMPT, PROMPT],
            [GOLD, CORRUPTED, GOLD],
            task_id=[TASK_ID, TASK_ID, INFRA_TASK_ID],
            prompt_id=["p1", "p1", "p2"],
        )
        self.assertEqual(rewards, [0.1, -0.2, None])
        self.assertEqual(CountingClient.calls, 1)
        self.assertEqual(set(self.metrics), set(METRIC_KEYS))
        self.assertAlmostEqual(self.metrics["minedit/pass_rate"], 1 / 3)
        self.assertAlmostEqual(self.metrics["minedit/infra_error_rate"], 1 / 3)
        self.assertEqual(self.metrics["minedit/passed_excess_per_sample"], 0.0)
        self.assertEqual(self.metrics["minedit/call_failed"], 0.0)
        self.assertEqual(self.columns["minedit_verdict"], ["PASSED", "FAILED_TESTS", "INFRA_ERROR"])
        print(f"trl standard: {rewards}")

    def test_conversational_format(self) -> None:
        prompt = [{"role": "system", "content": "You repair code."}, {"role": "user", "content": PROMPT}]
        rewards = self.call(
            [prompt, prompt],
            [[{"role": "assistant", "content": GOLD}], [{"role": "assistant", "content": CORRUPTED}]],
            task_id=[TASK_ID, TASK_ID],
        )
        self.assertEqual(rewards, [0.1, -0.2])
        self.assertEqual(CountingClient.calls, 1)

    def test_other_task_id_column_and_missing_column(self) -> None:
        reward = trl_reward_func(task_id_column="problem")
        self.assertEqual(asyncio.run(reward(prompts=[PROMPT], completions=[GOLD], problem=[TASK_ID])), [0.1])
        with self.assertRaises(KeyError) as caught:
            asyncio.run(reward(prompts=[PROMPT], completions=[GOLD], task_id=[TASK_ID]))
        self.assertIn("'problem'", str(caught.exception))

    def test_works_without_the_log_hooks(self) -> None:
        # Older TRL versions pass no log_metric / log_extra.
        rewards = asyncio.run(self.reward(prompts=[PROMPT], completions=[CORRUPTED], task_id=[TASK_ID]))
        self.assertEqual(rewards, [-0.2])


class VerlTest(unittest.TestCase):
    KEYS = set(minedit_verl.RESULT_KEYS)

    def test_per_sample(self) -> None:
        # compute_score is async (verl's reward loop awaits it); compute_score_sync is the same, blocking.
        self.assertTrue(inspect.iscoroutinefunction(minedit_verl.compute_score))
        extra = {"split": "train", "index": 0, "task_id": TASK_ID}
        gold = asyncio.run(
            minedit_verl.compute_score(data_source="minedit", solution_str=GOLD, ground_truth=TASK_ID, extra_info=extra)
        )
        self.assertEqual(set(gold), self.KEYS)
        self.assertEqual((gold["score"], gold["passed"], gold["infra_error"]), (0.1, 1.0, 0.0))
        self.assertEqual(gold["tests_passed"], gold["tests_total"])
        bad = minedit_verl.compute_score_sync("minedit", CORRUPTED, TASK_ID)  # positional, no extra_info
        self.assertEqual((bad["score"], bad["passed"]), (-0.2, 0.0))
        # verl's reward loop also passes reward_router_address / reward_model_tokenizer.
        infra = minedit_verl.compute_score_sync(
            data_source="minedit",
            solution_str=GOLD,
            ground_truth=INFRA_TASK_ID,
            extra_info={"task_id": INFRA_TASK_ID},
            reward_router_address=None,
            reward_model_tokenizer=None,
        )
        # An INFRA_ERROR scores the failure reward, never more than a failed repair.
        self.assertEqual((infra["score"], infra["infra_error"]), (-0.2, 1.0))
        self.assertEqual(minedit_verl.compute_score_prime("minedit", GOLD, TASK_ID, None), 0.1)

    def test_task_id_sources_must_agree(self) -> None:
        only_extra = minedit_verl.compute_score_sync("minedit", GOLD, None, {"task_id": TASK_ID})
        self.assertEqual(only_extra["score"], 0.1)
        with self.assertRaises(ValueError):
            minedit_verl.compute_score_sync("minedit", GOLD, TASK_ID, {"task_id": INFRA_TASK_ID})

    def test_batch_reward_manager(self) -> None:
        results = minedit_verl.compute_score_batch(
            data_sources=["minedit"] * 4,
            solution_strs=[GOLD, CORRUPTED, GOLD, CORRUPTED],
            ground_truths=[TASK_ID, TASK_ID, INFRA_TASK_ID, INFRA_TASK_ID],
            extra_infos=[{"task_id": TASK_ID, "index": i} for i in range(2)]
            + [{"task_id": INFRA_TASK_ID, "index": i} for i in range(2, 4)],
            infra_error_score=-0.05,
        )
        self.assertEqual([r["score"] for r in results], [0.1, -0.2, -0.05, -0.05])
        self.assertEqual([r["infra_error"] for r in results], [0.0, 0.0, 1.0, 1.0])
        self.assertTrue(all(set(r) == self.KEYS for r in results))
        print(f"verl batch: {[r['score'] for r in results]}")


class VerifiersTest(unittest.TestCase):
    def test_rubric_reward_and_metrics(self) -> None:
        reward = vf_reward_func()
        metrics = minedit_metric_funcs()
        self.assertTrue(inspect.iscoroutinefunction(reward))
        self.assertEqual(reward.__name__, "minedit_reward")

        class AssistantMessage:  # verifiers >= 0.1.11: a pydantic model, attributes, not a Mapping
            role = "assistant"

            def __init__(self, content):
                self.content = content

        async def score(**kwargs):
            state = {"prompt": [{"role": "user", "content": PROMPT}], "answer": kwargs.get("answer"), "error": None}
            value = await reward(state=state, task="default", **kwargs)
            return value, [m(state=state) for m in metrics], state

        chat = [{"role": "assistant", "content": GOLD}]
        value, (passed, excess, infra), state = asyncio.run(
            score(prompt=[{"role": "user", "content": PROMPT}], completion=chat, answer=TASK_ID, info={})
        )
        self.assertEqual((value, passed, excess, infra), (0.1, 1.0, 0.0, 0.0))
        self.assertEqual(state["minedit"]["verdict"], "PASSED")
        self.assertIsNone(state["error"])

        value, (passed, _, _), _ = asyncio.run(score(completion=[AssistantMessage(GOLD)], answer=TASK_ID, info={}))
        self.assertEqual((value, passed), (0.1, 1.0))

        value, (passed, _, infra), _ = asyncio.run(score(completion=CORRUPTED, answer="", info={"task_id": TASK_ID}))
        self.assertEqual((value, passed, infra), (-0.2, 0.0, 0.0))

        # INFRA_ERROR: marked in state["error"] (verifiers' InfraError; here, without verifiers, the local
        # stand-in) and scored as the failure reward, never above a failure.
        with self.assertLogs("minedit_client.verifiers", "ERROR"):
            value, (passed, _, infra), state = asyncio.run(score(completion=chat, answer=INFRA_TASK_ID, info={}))
        self.assertEqual((value, passed, infra), (-0.2, 0.0, 1.0))
        self.assertIsNone(state["minedit"]["reward"])
        self.assertIsInstance(state["error"], MineditInfraError)


class SharedHelpersTest(unittest.TestCase):
    def test_completion_text_shapes(self) -> None:
        self.assertEqual(completion_text("abc"), "abc")
        self.assertEqual(
            completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a1"},
                             {"role": "tool", "content": "t"}, {"role": "assistant", "content": "a2"}]),
            "a2",
        )
        self.assertEqual(completion_text([{"content": "only"}]), "only")
        self.assertEqual(
            completion_text([{"role": "assistant", "content": [{"type": "text", "text": "x"},
                                                               {"type": "image_url", "image_url": {}},
                                                               {"type": "text", "text": "y"}]}]),
            "xy",
        )

    def test_infra_errors_take_their_group_mean(self) -> None:
        def result(reward):
            return RolloutResult(
                id="", reward=reward, verdict="PASSED" if reward is not None else "INFRA_ERROR", components=None,
                tests_passed=0, tests_total=0, detail="", cached=False, reward_version="", group_id="",
                timings=Timings(0, 0, 0, 0),
            )

        rewards, infra = masked_rewards(
            [result(0.1), result(None), result(-0.2), result(None)], ["a", "a", "a", "b"], fallback=7.0
        )
        self.assertAlmostEqual(rewards[1], (0.1 - 0.2) / 2)
        self.assertEqual([rewards[0], rewards[2], rewards[3]], [0.1, -0.2, 7.0])
        self.assertEqual(infra, [False, True, False, True])

    def test_invalid_task_is_masked_like_infra_error_by_every_adapter(self) -> None:
        # An inline task whose gold fails its own tests: the server sends INVALID_TASK with no reward.
        def result(verdict, reward):
            return RolloutResult(
                id="", reward=reward, verdict=verdict, components=None, tests_passed=0, tests_total=0,
                detail="the task's gold program does not pass its own tests (FAILED_TESTS)", cached=False,
                reward_version="", group_id="", timings=Timings(0, 0, 0, 0),
            )

        invalid = result("INVALID_TASK", None)
        self.assertEqual((invalid.masked, invalid.invalid_task, invalid.infra_error), (True, True, False))
        # TRL: None (masked on TRL >= 1.6), like INFRA_ERROR.
        from minedit_client.trl import _rewards

        self.assertEqual(_rewards([result("PASSED", 0.1), invalid], ["t", "u"], "none"), [0.1, None])
        # verl's batch manager and OpenRLHF-style callers: the group mean, like INFRA_ERROR.
        rewards, masked = masked_rewards([result("PASSED", 0.1), invalid], ["t", "t"], fallback=-0.2)
        self.assertEqual((rewards, masked), ([0.1, 0.1], [False, True]))
        # verl per sample: the INFRA_ERROR score and its own key; "raise" raises as for INFRA_ERROR.
        scored = minedit_verl._finish("t", invalid, None, -0.2, "score")
        self.assertEqual((scored["score"], scored["invalid_task"], scored["infra_error"]), (-0.2, 1.0, 0.0))
        self.assertEqual(set(scored), set(minedit_verl.RESULT_KEYS))
        with self.assertRaises(minedit_verl.InfraError) as raised:
            minedit_verl._finish("t", invalid, None, -0.2, "raise")
        self.assertIn("INVALID_TASK", str(raised.exception))


if __name__ == "__main__":
    unittest.main()

"""One GRPO step's reward calls the way per-sample trainers make them, against a running minedit server.

Run by benchmarks/trainer-calls/run.mjs (which starts the server and reads the JSON this prints); not a
test. Modes:

- ``grpc-per-sample``: verl >= 0.7's reward loop as today's naive adapters meet it: W worker processes
  (verl's reward-loop actors, 8 by default), each awaiting one ``compute_score`` per sample concurrently,
  each call one ScoreBatch of one rollout;
- ``grpc-coalesced``: the same callers through minedit_client.CoalescingScorer (one per process);
- ``http``: OpenRLHF >= 0.9.1: one single-sample ``POST /get_reward`` per sample, up to C in flight
  (threads); whether the server coalesces is the server's configuration.

Samples arrive either all at once (``--spread 0``, the best case for coalescing), spread uniformly over
``--spread`` seconds (each sample's generation finishing at a different time, as in a real step), or at
the times ``--arrivals-file`` gives (a JSON list of seconds, one per sample in the samples' order: the
generation-like profile of trainer-calls/bigcodebench.mjs). The samples are the seed tasks' model-like
completions (``--tasks-file``) or those of ``--samples-file`` (JSON lines ``{id, task_id, completion}``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from minedit_client import AsyncMineditClient, CoalescingScorer, MineditClient, Rollout  # noqa: E402


def fence(code: str) -> str:
    return "```python\n" + code + ("" if code.endswith("\n") else "\n") + "```\n"


def step_samples(tasks_file: str, tasks: int, per_task: int, seed: int) -> list:
    """``tasks`` × ``per_task`` model-like completions: minimal repairs (often repeated), the same repair
    with comments and blank lines (identical once normalized), the corrupted program unchanged, an
    unfenced repair ending in the chat template's end of turn, prose around a fence, and no code."""
    with open(tasks_file, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rng = random.Random(seed)
    chosen = rng.sample(rows, tasks)
    samples = []
    for t, task in enumerate(chosen):
        gold, corrupted = task["gold"], task["corrupted"]
        commented = gold.replace("\n", "  # fixed\n", 1).replace("\n\n", "\n\n\n")
        kinds = [
            fence(gold),
            fence(gold),
            fence(gold),
            fence(commented),
            fence(commented),
            fence(corrupted),
            fence(corrupted),
            gold + "<|im_end|>",
            "The bug is in the loop. Fixed:\n" + fence(gold) + "This keeps the rest unchanged.",
            "I cannot fix this.",
        ]
        for s in range(per_task):
            samples.append(
                {"id": f"t{t}-s{s}", "task_id": task["task_id"], "completion": kinds[rng.randrange(len(kinds))]}
            )
    rng.shuffle(samples)
    return samples


def read_samples(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def arrival_delays(n: int, spread: float, seed: int) -> list:
    rng = random.Random(seed)
    return [rng.uniform(0, spread) if spread > 0 else 0.0 for _ in range(n)]


# ---- gRPC: worker processes, one asyncio loop each ------------------------------------------------------


def grpc_worker(args, samples, delays, start_at, out) -> None:
    async def run():
        settings = {"target": args.target, "timeout": 600}
        if args.token:
            settings["token"] = args.token
        scorer = None
        client = None
        if args.mode == "grpc-coalesced":
            scorer = CoalescingScorer(lambda: MineditClient(**settings), window_s=args.window_ms / 1000.0)
        else:
            client = AsyncMineditClient(**settings)

        async def one(sample, delay):
            await asyncio.sleep(max(0.0, start_at + delay - time.monotonic()))
            sent = time.monotonic()
            rollout = Rollout(id=sample["id"], completion=sample["completion"], task_id=sample["task_id"])
            if scorer is not None:
                result = await scorer.score_async(rollout)
            else:
                [result] = await client.score_batch([rollout])
            return sample["id"], result.verdict, result.reward, time.monotonic(), sent

        results = await asyncio.gather(*(one(s, d) for s, d in zip(samples, delays)))
        if scorer is not None:
            rpcs = scorer.stats.calls
            scorer.close()
        else:
            rpcs = len(samples)
            await client.close()
        return results, rpcs

    try:
        results, rpcs = asyncio.run(run())
    except BaseException:  # noqa: BLE001 - the parent waits for every worker's report
        import traceback

        out.put({"error": traceback.format_exc()})
        return
    out.put({"results": results, "rpcs": rpcs})


def run_grpc(args, samples, delays):
    # Spawned, not forked: the parent has imported grpc, and a child forked from it fails its first
    # connection now and then ("tcp handshaker shutdown"). Each trainer worker is its own process anyway.
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    start_at = time.monotonic() + 3.0  # every worker is up before the first sample "finishes"
    workers = []
    for w in range(args.workers):
        part = list(range(w, len(samples), args.workers))
        process = context.Process(
            target=grpc_worker,
            args=(args, [samples[i] for i in part], [delays[i] for i in part], start_at, out),
        )
        process.start()
        workers.append(process)
    reports = [out.get() for _ in workers]
    for process in workers:
        process.join()
    for report in reports:
        if "error" in report:
            raise RuntimeError(f"a worker failed:\n{report['error']}")
    results = [r for report in reports for r in report["results"]]
    return results, sum(report["rpcs"] for report in reports), start_at


# ---- HTTP: OpenRLHF's one sample per request ---------------------------------------------------------------


def run_http(args, samples, delays):
    start_at = time.monotonic() + 0.2

    def one(index):
        sample = samples[index]
        time.sleep(max(0.0, start_at + delays[index] - time.monotonic()))
        sent = time.monotonic()  # later than due when every one of the C threads is waiting for an answer
        body = json.dumps(
            {"query": ["<prompt>" + sample["completion"]], "prompts": ["<prompt>"], "labels": [sample["task_id"]]}
        ).encode()
        request = urllib.request.Request(args.url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=180) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as error:
            # OpenRLHF would retry 5 times and then train on a missing reward: reported as that sample's
            # verdict, so the benchmark names the samples (and the server's message) instead of crashing.
            message = error.read().decode("utf-8", "replace")[:300]
            return sample["id"], f"HTTP {error.code}: {message}", None, time.monotonic(), sent
        verdicts = answer.get("verdicts")
        return sample["id"], verdicts[0] if verdicts else None, answer["rewards"][0], time.monotonic(), sent

    # In order of arrival, as a trainer sends each sample when its generation ends.
    order = sorted(range(len(samples)), key=lambda i: delays[i])
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        results = list(pool.map(one, order))
    return results, None, start_at


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["grpc-per-sample", "grpc-coalesced", "http"])
    parser.add_argument("--tasks-file", default="")
    parser.add_argument("--samples-file", default="")
    parser.add_argument("--arrivals-file", default="")
    parser.add_argument("--target", default="127.0.0.1:50051")
    parser.add_argument("--token", default="")
    parser.add_argument("--url", default="")
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--per-task", type=int, default=16)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--concurrency", type=int, default=128)
    parser.add_argument("--window-ms", type=float, default=20.0)
    parser.add_argument("--spread", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    if args.samples_file:
        samples = read_samples(args.samples_file)
    elif args.tasks_file:
        samples = step_samples(args.tasks_file, args.tasks, args.per_task, args.seed)
    else:
        parser.error("give --tasks-file or --samples-file")
    if args.arrivals_file:
        with open(args.arrivals_file, encoding="utf-8") as f:
            delays = [float(d) for d in json.load(f)]
        if len(delays) != len(samples):
            parser.error(f"--arrivals-file: {len(delays)} times for {len(samples)} samples")
    else:
        delays = arrival_delays(len(samples), args.spread, args.seed + 1)
    if args.mode == "http":
        results, rpcs, start_at = run_http(args, samples, delays)
    else:
        results, rpcs, start_at = run_grpc(args, samples, delays)
    # Arrivals as they happened (an HTTP sample waits for a free thread when all C are waiting).
    first_arrival = min(r[4] for r in results)
    last_arrival = max(r[4] for r in results)
    end = max(r[3] for r in results)
    print(
        json.dumps(
            {
                "mode": args.mode,
                "samples": len(results),
                "rpcs": rpcs,
                # From the first sample's arrival to the last reward, and from the last arrival (what a
                # trainer waits for after generation ends) to the last reward.
                "step_s": end - first_arrival,
                "after_last_arrival_s": end - last_arrival,
                # How much later than due the last sample was sent (the in-flight bound of HTTP callers).
                "last_arrival_late_s": last_arrival - (start_at + max(delays)),
                "rewards": {r[0]: r[2] for r in results},
                "verdicts": {r[0]: r[1] for r in results},
            }
        )
    )


if __name__ == "__main__":
    main()

"""Shared set-up of the client tests. They run against a REAL `minedit serve` engine that the vitest file
tests/clients/python-client.test.ts starts, and which it describes in the environment:

- MINEDIT_TARGET: host:port of the gRPC server (it requires the token below);
- MINEDIT_TOKEN: its bearer token;
- MINEDIT_OPENRLHF_URL: the OpenRLHF endpoint (http://host:port/get_reward);
- MINEDIT_OPENRLHF_TIGHT_URL, MINEDIT_OPENRLHF_TIGHT_BUDGET_S: a second engine's endpoint, with a short
  request budget (server.openrlhfRequestBudgetMs), for the at-scale test;
- MINEDIT_TASKS_FILE: the demo task file the server serves;
- MINEDIT_INFRA_TASK_ID: a stored task whose tests are unusable (assert tests without check()), so every
  rollout of it gets the INFRA_ERROR verdict.
"""

import json
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

TARGET = os.environ["MINEDIT_TARGET"]
TOKEN = os.environ["MINEDIT_TOKEN"]
OPENRLHF_URL = os.environ["MINEDIT_OPENRLHF_URL"]
OPENRLHF_TIGHT_URL = os.environ["MINEDIT_OPENRLHF_TIGHT_URL"]
OPENRLHF_TIGHT_BUDGET_S = float(os.environ["MINEDIT_OPENRLHF_TIGHT_BUDGET_S"])
INFRA_TASK_ID = os.environ["MINEDIT_INFRA_TASK_ID"]

with open(os.environ["MINEDIT_TASKS_FILE"], encoding="utf-8") as f:
    TASKS = [json.loads(line) for line in f if line.strip()]

TASK = next(t for t in TASKS if t["tests"]["style"] == "unittest")
TASK_ID = TASK["task_id"]
OTHER_TASK = next(t for t in TASKS if t["task_id"] != TASK_ID and t["tests"]["style"] == "unittest")


def fence(code: str) -> str:
    return "```python\n" + code + "```"


GOLD = "Here is the repair:\n" + fence(TASK["gold"])
# A passing repair that changes more than the gold one: reward 0.1 - excess, with excess > 0.
GOLD_PLUS = fence(TASK["gold"] + "\n_unused = 1\n")
CORRUPTED = fence(TASK["corrupted"])
SLEEPER = fence("import time\ntime.sleep(30)\n")

# An inline task whose tests cannot run (assert style without check()): INFRA_ERROR for any program.
BROKEN_INLINE_TASK = {
    "corrupted": "def f(x):\n    return x + 1\n",
    "gold": "def f(x):\n    return x\n",
    "entry_point": "f",
    "tests": {"style": "assert", "code": "assert True\n"},
}

# TASK as an inline task, and the same with a gold that fails its own tests: INVALID_TASK for any program.
INLINE_TASK = {k: TASK[k] for k in ("corrupted", "gold", "tests", "entry_point")}
INVALID_INLINE_TASK = {**INLINE_TASK, "gold": TASK["corrupted"]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

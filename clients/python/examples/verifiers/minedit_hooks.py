"""minedit as a reward of a verifiers.v1 taskset that is not minedit's own, for a taskset whose data keeps the
minedit task id in a field other than ``task_id`` (here ``answer``). Plug it in with (paths resolve from the
working directory of the env-server processes; the server is found through MINEDIT_TARGET / MINEDIT_TOKEN):

    [orchestrator.train.source.env.taskset.task.rewards]
    minedit = { fn = "minedit_hooks.py:minedit", weight = 1.0 }

A taskset whose data has ``task_id`` or ``minedit_task`` (fields, or keys of ``info``) needs no file:
``fn = "minedit_client.verifiers:minedit_taskset_reward"`` (prime-rl-plugged-reward.toml).
"""

from minedit_client.verifiers import taskset_reward

minedit = taskset_reward(task_id_field="answer")

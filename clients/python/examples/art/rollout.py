"""An ART rollout scored by minedit (OpenPipe ART 0.3.x-0.5.x). Everything but the two marked lines is what
ART asks of any rollout; train.py gathers and trains on it. ``row`` is one row of a minedit GRPO export
(``minedit export --kind grpo --format hf``): ``prompt`` (chat messages) and ``task_id``. The server is found
through MINEDIT_TARGET / MINEDIT_TOKEN.

An INFRA_ERROR / INVALID_TASK sample raises minedit_client.art.MaskedError: ART drops the trajectory from its
group (pass max_exceptions= to art.gather_trajectory_groups, as train.py does).
"""

import art

import minedit_client.art  # minedit


async def rollout(model: art.Model, row: dict) -> art.Trajectory:
    messages = list(row["prompt"])
    completion = await model.openai_client().chat.completions.create(
        model=model.name, messages=messages, max_completion_tokens=2048
    )
    trajectory = art.Trajectory(messages_and_choices=[*messages, completion.choices[0]], reward=0.0)
    return await minedit_client.art.score_trajectory(trajectory, row["task_id"])  # minedit

"""NeMo-RL v0.7.0 GRPO with minedit's environment: registers it, then runs NeMo-RL's own launcher. From
the NeMo-RL checkout (minedit_client installed in its venv: ``uv pip install -e <minedit>/clients/python``,
grpo_minedit.yaml copied to examples/configs/)::

    export MINEDIT_TARGET=host:50051 MINEDIT_TOKEN=...
    uv run python <minedit>/clients/python/examples/nemo_rl/run_grpo_minedit.py \\
        --config examples/configs/grpo_minedit.yaml policy.max_total_sequence_length=4096
"""

import runpy

from minedit_client.nemo_rl import register

register()  # env name "minedit" -> minedit_client.nemo_rl.MineditEnvironment
runpy.run_path("examples/run_grpo.py", run_name="__main__")

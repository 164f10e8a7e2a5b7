# slime (v0.3.1) arguments for GRPO on minedit rewards: source this file in a slime run script (such as
# slime's scripts/run-qwen3-4B.sh) and pass "${MINEDIT_ARGS[@]}" to train.py next to ROLLOUT_ARGS, without
# that script's own --prompt-data / --input-key / --label-key / --rm-type.
# Data: JSONL rows {input: prompt messages, label: task id}, as
#   minedit export --kind grpo --format openrlhf --tasks TASKS.jsonl --out DIR     writes them, or
#   python3 clients/python/examples/demo_dataset.py --format openrlhf > grpo.jsonl  (from the demo tasks)
# Needs `pip install ./clients/python` where slime runs and `node bin/minedit.js serve`; the server's
# address is in minedit.yaml (or MINEDIT_TARGET in the environment of slime's Ray actors).
# --group-rm scores each GRPO group at once: an INFRA_ERROR sample gets its group's mean reward and
# remove_sample (no loss, advantage 0). slime's evaluation refuses --group-rm: to evaluate
# (--eval-prompt-data), drop it; a masked sample then scores -0.2, still with remove_sample.
# --reward-key score makes the reward a dict, so --log-reward-category logs the share of each verdict.
MINEDIT_ARGS=(
  --prompt-data "${PROMPT_DATA:-grpo.jsonl}" --input-key input --label-key label --apply-chat-template
  --custom-rm-path minedit_client.slime.reward --group-rm
  --reward-key score --log-reward-category verdict
  --custom-config-path "$(dirname "${BASH_SOURCE[0]}")/minedit.yaml"
)

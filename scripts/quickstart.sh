#!/usr/bin/env bash
# Sets up a fresh clone and runs the main job on embedded defaults: scores the demo batch of rollouts
# (datasets/demo) and prints one reward line per rollout plus a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-system.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build
node bin/minedit.js score datasets/demo/rollouts.jsonl --tasks datasets/demo/tasks.jsonl --no-exec

#!/usr/bin/env bash
# Sets up a fresh clone and runs the main job on embedded defaults: starts the gRPC reward service on a
# free loopback port, scores a demo batch of rollouts for the shipped demo tasks over a real gRPC client
# (tests executed in the bubblewrap sandbox), prints one reward and verdict per rollout, and stops.
#
#   bash scripts/quickstart.sh [--runtime NAME]...
#     --runtime NAME   also install the task runtime NAME (`minedit setup --runtime NAME`), e.g. bigcodebench
#                      for BigCodeBench tasks (pandas, numpy, matplotlib, scikit-learn, ...); may be repeated
set -euo pipefail
cd "$(dirname "$0")/.."
runtimes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runtime) [ $# -ge 2 ] || { echo "quickstart.sh: --runtime needs a name" >&2; exit 2; }; runtimes+=("$2"); shift 2 ;;
    --runtime=*) runtimes+=("${1#--runtime=}"); shift ;;
    -h|--help) sed -n '2,8s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "quickstart.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
source scripts/ensure-system.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build
for runtime in "${runtimes[@]}"; do
  node bin/minedit.js setup --runtime "$runtime"
done
node bin/minedit.js demo

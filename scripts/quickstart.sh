#!/usr/bin/env bash
# Sets up a fresh clone and runs the main job on embedded defaults: starts the gRPC reward service on a
# free loopback port, scores a demo batch of rollouts for the shipped demo tasks over a real gRPC client
# (tests executed in the bubblewrap sandbox), prints one reward and verdict per rollout, and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-system.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build
node bin/minedit.js demo

#!/usr/bin/env bash
# Sets up a fresh clone and runs the full test suite (typecheck, lint, unit, differential, CLI tests).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-system.sh
source scripts/ensure-docker.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build
npm run typecheck
npm run lint
# The quick start itself, as a new user runs it (npm ci again is quick: the cache is warm).
bash scripts/quickstart.sh
npx vitest run

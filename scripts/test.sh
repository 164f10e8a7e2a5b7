#!/usr/bin/env bash
# Sets up a fresh clone and runs the full test suite (typecheck, lint, unit, differential, CLI tests).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-system.sh
source scripts/ensure-docker.sh
npm ci --no-audit --no-fund --loglevel=error
npm run typecheck
npm run lint
# The quick start itself, as a new user runs it (npm ci again is quick: the cache is warm).
bash scripts/quickstart.sh
# The suite builds dist/ itself, once, before any test file runs (tests/setup/build-dist.ts), and ends by
# listing every skipped test with its reason (tests/setup/skip-reporter.ts).
npx vitest run

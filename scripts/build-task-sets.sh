#!/usr/bin/env bash
# Rebuilds the task sets shipped in datasets/ from the seed problems (datasets/seed/problems.jsonl) with
# `minedit tasks build`, from scratch: each set's task file, build log and report are removed first, so a
# changed corruption engine shows up in full. Deterministic: the same engine and seed give the same files.
# The in-domain and demo sets pin `--mix blocks` (uniform draw, whole guards inserted and removed), how
# they were drawn before the paper mix became the in-domain default: they stay byte for byte what other
# tests, examples and benchmarks were written against. `minedit tasks build` without --mix draws the
# paper mix instead (docs/tasks.md).
#
#   in-domain  datasets/tasks/in-domain.jsonl   the 14 in-domain families, 1-2 corruptions, 2 tasks a problem
#   ood        datasets/tasks/ood.jsonl         the 20 held-out families, 1-2 corruptions, 2 tasks a problem
#   demo       datasets/seed/demo-tasks.jsonl   one in-domain corruption, one task for each problem of
#                                               datasets/seed/demo-problems.txt (8 per test style)
#
# Usage: scripts/build-task-sets.sh [in-domain] [ood] [demo]   (default: all three)
# Needs the built CLI (npm run build) and bubblewrap; the reports are printed on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f dist/cli/main.js ]]; then
  echo "build-task-sets: dist/cli/main.js is missing: run \`npm run build\` first" >&2
  exit 3
fi

SOURCE=datasets/seed/problems.jsonl
SEED=0

fresh() {
  local base="${1%.jsonl}"
  rm -f "$1" "$base.build.log" "$base.report.md" "$base.report.json"
}

build() {
  local out="$1"
  shift
  fresh "$out"
  node bin/minedit.js tasks build --source "$SOURCE" --seed "$SEED" --out "$out" "$@"
}

sets=("$@")
[[ ${#sets[@]} -eq 0 ]] && sets=(in-domain ood demo)
for set in "${sets[@]}"; do
  case "$set" in
    in-domain)
      build datasets/tasks/in-domain.jsonl --families in-domain --mix blocks --corruptions 1-2 --variants 2 \
        --split test
      ;;
    ood)
      build datasets/tasks/ood.jsonl --families ood --corruptions 1-2 --variants 2 --split ood
      ;;
    demo)
      build datasets/seed/demo-tasks.jsonl --only datasets/seed/demo-problems.txt --families in-domain \
        --mix blocks --corruptions 1 --variants 1 --split demo
      ;;
    *)
      echo "build-task-sets: unknown set \"$set\" (in-domain, ood, demo)" >&2
      exit 2
      ;;
  esac
done

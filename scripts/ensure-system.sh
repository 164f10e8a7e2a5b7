#!/usr/bin/env bash
# Checks (and, as root on Debian, installs) the system tools minedit needs: Node.js >= 20 with npm,
# bubblewrap (the embedded sandbox), Debian's CPython 3.11 at /usr/bin/python3 (runs candidates inside the
# sandbox) and CPython 3.11 as `python3` (the test oracle). Sourced by quickstart.sh and test.sh.
set -euo pipefail

need_root_or_explain() {
  # $1: what is missing, $2: the Debian packages that provide it
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "minedit setup: installing $2 (for $1) with apt-get" >&2
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $2 >/dev/null
  else
    echo "minedit setup: $1 is missing. Install it, e.g.: sudo apt-get install -y $2" >&2
    exit 1
  fi
}

if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  need_root_or_explain "Node.js >= 20 with npm" "nodejs npm"
fi

if ! command -v bwrap >/dev/null 2>&1; then
  need_root_or_explain "bubblewrap (the sandbox that runs candidate programs)" "bubblewrap"
fi

if ! command -v prlimit >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
  need_root_or_explain "prlimit and setpriv (resource limits and privilege drop for the sandbox)" "util-linux"
fi

python_is_311() { "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; }

if ! python_is_311 /usr/bin/python3; then
  need_root_or_explain "CPython 3.11 at /usr/bin/python3" "python3"
fi

if ! command -v python3 >/dev/null 2>&1 || ! python_is_311 python3; then
  # Put Debian's 3.11 first on PATH for the test oracle.
  shim="$(pwd)/.cache/python-shim"
  mkdir -p "$shim"
  ln -sf /usr/bin/python3 "$shim/python3"
  export PATH="$shim:$PATH"
fi

#!/usr/bin/env bash
# need_root_or_explain WHAT PACKAGES: as root on Debian, install PACKAGES (for WHAT) with apt-get; otherwise
# say what to install and exit 1. Sourced by ensure-system.sh and ensure-docker.sh (one definition).
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

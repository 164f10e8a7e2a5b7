#!/usr/bin/env bash
# Makes this machine ready for the Docker sandbox backend's tests (src/sandbox/docker.ts): Docker (docker.io:
# the client and dockerd), debootstrap (builds the images from Debian packages) and gVisor's runsc (optional
# for the sandbox, installed as root for its tests); a reachable dockerd (started here, as root, when none answers); and the images the tests run in, built
# or reused by sandbox/docker/build-image.sh: the stdlib task runtime's and the cpp, java and lint toolchains'
# (~1.7 GB on vfs, ~4 min to build on a fresh machine), each ID exported as MINEDIT_DOCKER_IMAGE_<NAME>. The
# bigcodebench image (~1.9 GB) is not built here: the tests use that runtime on bwrap only.
# Sourced by test.sh right after ensure-system.sh, and run by .ci/run before test.sh (so the daemon is up
# before the suite starts); every step reuses what exists, so running it twice is cheap.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/need-root-or-explain.sh"

# A function, so that sourcing this file leaves no variables behind in test.sh.
minedit_ensure_docker() {
  local repo is_root=0 dockerd_log runsc_wrapper="" runsc_script i runtime
  local -a dockerd_args
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  if [ "$(id -u)" = "0" ]; then is_root=1; fi
  # dockerd and debootstrap live in /usr/sbin, which a non-root PATH often lacks.
  sys_has() { PATH="$PATH:/usr/sbin:/sbin" command -v "$1" >/dev/null 2>&1; }

  # build-image.sh reads sandbox/runtimes.json with Debian's python3 (this may run before ensure-system.sh).
  if [ ! -x /usr/bin/python3 ]; then
    need_root_or_explain "CPython at /usr/bin/python3 (sandbox/docker/build-image.sh reads the runtimes with it)" "python3"
  fi
  if ! command -v docker >/dev/null 2>&1 || ! sys_has dockerd; then
    need_root_or_explain "Docker (docker and dockerd: the Docker sandbox backend)" "docker.io"
  fi
  # Only a build needs debootstrap, and only root can build; without root an image already built is reused,
  # and build-image.sh says what to do if there is none.
  if [ "$is_root" = 1 ] && ! sys_has debootstrap; then
    need_root_or_explain "debootstrap (sandbox/docker/build-image.sh builds the images from Debian packages)" "debootstrap"
  fi
  # gVisor is optional for the Docker sandbox (without it, containers run under runc, Docker's default), but
  # the tests run under it too (tests/sandbox/docker.test.ts, syscall-filter.test.ts), so setup installs it
  # as root and fails when it cannot; without root it says how. Whether runsc can then start containers on
  # this host is the tests' to find out: they skip with runsc's own error when it cannot (tests/sandbox/gvisor.ts).
  if [ ! -x /usr/bin/runsc ]; then
    if [ "$is_root" = 1 ]; then
      need_root_or_explain "runsc (gVisor, the Docker sandbox's optional OCI runtime; the gVisor tests use it)" "runsc"
    else
      echo "minedit setup: note: gVisor is not installed (sudo apt-get install -y runsc); the Docker sandbox runs under runc only, and the gVisor tests are skipped" >&2
    fi
  fi

  if [ -x /usr/bin/runsc ]; then
    # runsc by way of a wrapper that adds --network=none: the sandbox containers never have a network, and
    # without it Debian's runsc (20221219) refuses to start any container on Linux >= 6.11 ("cannot run with
    # network enabled in root network namespace": it mistakes the container's network namespace for the
    # host's, google/gvisor#10704). And --host-uds=open: a warm container's fork server connects to the
    # server's control socket, bind-mounted in (src/sandbox/docker.ts), which gVisor refuses by default.
    # And --oci-seccomp: without it runsc ignores the container's seccomp profile, the sandbox's syscall
    # filter (runsc/boot: "Seccomp spec is being ignored"); with it gVisor's kernel applies the profile to
    # the container's processes (docs/sandbox.md, "The syscall filter"). dockerd's --add-runtime takes a
    # path, not arguments, hence the file; it runs for every container, so rewriting it (atomically) is
    # enough for a daemon that is already running.
    runsc_wrapper=/usr/local/lib/minedit/runsc
    runsc_script='#!/bin/sh
# Written by minedit scripts/ensure-docker.sh: gVisor without its network stack, with host sockets, applying the seccomp profiles (see there).
exec /usr/bin/runsc --network=none --host-uds=open --oci-seccomp "$@"'
    if [ "$(cat "$runsc_wrapper" 2>/dev/null)" != "$runsc_script" ]; then
      if [ "$is_root" = 1 ]; then
        mkdir -p "$(dirname "$runsc_wrapper")"
        printf '%s\n' "$runsc_script" >"$runsc_wrapper.new"
        chmod 755 "$runsc_wrapper.new"
        mv -f "$runsc_wrapper.new" "$runsc_wrapper"
      else
        echo "minedit setup: note: $runsc_wrapper is missing or out of date (gVisor would ignore the sandbox's syscall filter); run: sudo bash scripts/ensure-docker.sh" >&2
      fi
    fi
  fi

  if ! docker info >/dev/null 2>&1; then
    # The flags suit a CI container as much as a host: vfs works on any filesystem (overlayfs cannot be
    # stacked on the overlay root of a container; vfs copies each image into each container instead), and
    # the sandbox containers run with --network none, so Docker needs no bridge and no iptables rules (which
    # a container without CAP_NET_ADMIN could not create anyway).
    dockerd_args=(--storage-driver=vfs --bridge=none --iptables=false)
    if [ -n "$runsc_wrapper" ]; then
      dockerd_args+=(--add-runtime "runsc=$runsc_wrapper")
    fi
    if [ "$is_root" != 1 ]; then
      echo "minedit setup: the Docker daemon is not reachable (docker info fails) and starting it needs root." >&2
      echo "minedit setup: run: sudo bash scripts/ensure-docker.sh (it starts: dockerd ${dockerd_args[*]}), or check DOCKER_HOST and your access to /var/run/docker.sock" >&2
      exit 1
    fi
    mkdir -p "$repo/.cache"
    dockerd_log="$repo/.cache/dockerd.log"
    if [ -s /var/run/docker.pid ] && kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
      # A dockerd that is still starting (or wedged): a second one would only fail on the pid file.
      echo "minedit setup: dockerd (pid $(cat /var/run/docker.pid)) is running but not answering yet; waiting for it" >&2
      dockerd_log=""
    else
      echo "minedit setup: starting dockerd ${dockerd_args[*]} (log: $dockerd_log)" >&2
      # setsid + nohup, and no inherited stdin/stdout: the daemon outlives this script and the test run, and
      # holds none of CI's pipes open (the job would never see EOF).
      PATH="$PATH:/usr/sbin:/sbin" nohup setsid dockerd "${dockerd_args[@]}" </dev/null >"$dockerd_log" 2>&1 &
    fi
    for ((i = 0; i < 60; i++)); do
      docker info >/dev/null 2>&1 && break
      sleep 1
    done
    if ! docker info >/dev/null 2>&1; then
      echo "minedit setup: dockerd did not answer within 60 s." >&2
      if [ -n "$dockerd_log" ]; then
        echo "minedit setup: the last lines of $dockerd_log:" >&2
        tail -n 20 "$dockerd_log" >&2
      fi
      exit 1
    fi
  fi

  for runtime in stdlib cpp java lint; do
    bash "$repo/sandbox/docker/build-image.sh" "$runtime" >/dev/null
    export "MINEDIT_DOCKER_IMAGE_${runtime^^}=$(docker image inspect -f '{{.Id}}' "minedit-sandbox:$runtime")"
  done
}
minedit_ensure_docker
unset -f minedit_ensure_docker sys_has

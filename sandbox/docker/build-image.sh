#!/usr/bin/env bash
# Builds the Docker image of one task runtime (sandbox/runtimes.json), minedit-sandbox:RUNTIME, from Debian
# packages only: debootstrap makes a bookworm rootfs with python3 and the runtime's packages, and
# `docker import` turns it into a one-layer image. No Docker registry is involved (CI machines and the
# benchmark machines reach Debian's mirror, not Docker Hub), so there is no base image to pull.
#
# Usage: bash sandbox/docker/build-image.sh [--dry-run] RUNTIME
#   --dry-run  resolve the runtime's packages and print the debootstrap command and recipe hash; build nothing
#
# An image already tagged minedit-sandbox:RUNTIME whose minedit.recipe label matches this recipe (this
# script's text + the package list) is reused as is. The LAST line of stdout is the image ID (sha256:...),
# the value to pin as sandbox.docker.images.RUNTIME in minedit's config; progress goes to stderr.
# Environment: MINEDIT_DEBOOTSTRAP_CACHE (default /var/cache/minedit-debootstrap) keeps the downloaded .debs
# across builds; TMPDIR (default /var/tmp) holds the temporary rootfs.
set -euo pipefail

script="$(readlink -f "${BASH_SOURCE[0]}")"
repo="$(cd "$(dirname "$script")/../.." && pwd)"
runtimes_json="$repo/sandbox/runtimes.json"
cache_dir="${MINEDIT_DEBOOTSTRAP_CACHE:-/var/cache/minedit-debootstrap}"
suite=bookworm

log() { echo "build-image [${SECONDS}s]: $*" >&2; }
die() {
  # $1: exit status, the rest: the message
  local status="$1"
  shift
  echo "build-image: error: $*" >&2
  exit "$status"
}

dry_run=0
if [ "${1:-}" = "--dry-run" ]; then
  dry_run=1
  shift
fi
[ $# -eq 1 ] || die 2 "usage: bash sandbox/docker/build-image.sh [--dry-run] RUNTIME (a key of sandbox/runtimes.json \"runtimes\")"
runtime="$1"

# The package list is read with Debian's /usr/bin/python3 (not node: this runs before `npm ci` on a fresh
# machine, and python3 is the interpreter the images are about anyway).
[ -x /usr/bin/python3 ] || die 1 "/usr/bin/python3 is needed to read sandbox/runtimes.json: sudo apt-get install -y python3"
# Prints the runtime's Debian packages (those of its modules and of its programs) sorted, one a line; exits 2 listing the known runtimes if unknown.
if ! packages="$(/usr/bin/python3 -c '
import json, sys
runtimes = json.load(open(sys.argv[1]))["runtimes"]
r = runtimes.get(sys.argv[2])
if r is None:
    print("unknown runtime %r; the runtimes of sandbox/runtimes.json are: %s" % (sys.argv[2], ", ".join(sorted(runtimes))), file=sys.stderr)
    sys.exit(2)
print("\n".join(sorted(set(r["packages"]) | set(r.get("programs", {})))))
' "$runtimes_json" "$runtime")"; then
  die 2 "no image for runtime '$runtime' (see above)"
fi

# The recipe: a change to this script (debootstrap flags, trimming) or to the package list makes a new image;
# anything else reuses the tagged one. The mirror's content is not part of it: a rebuild after a Debian point
# release needs the old image removed (docker image rm minedit-sandbox:RUNTIME).
recipe="$({
  cat "$script"
  printf '%s\n' "$packages"
} | sha256sum | cut -d' ' -f1)"
tag="minedit-sandbox:$runtime"

# Two stages. debootstrap makes the base with python3 (the sandbox runs the candidates with it) and
# python-is-python3 (the bwrap sandbox shows the interpreter as `python` as well: BigCodeBench's subprocess
# tasks run `python script.py`, and a verdict must not depend on the backend). Then apt-get, in the new
# root, installs the runtime's packages with --no-install-recommends (what keeps bigcodebench's image from
# growing TeX, GUI toolkits, etc.): not debootstrap's --include, whose resolver cannot satisfy a dependency
# on a virtual package (python3-soundfile needs python3-cffi-backend-api-min, which python3-cffi-backend
# provides) and then fails configuring the whole set.
include="python3,python-is-python3"
apt_packages=()
if [ -n "$packages" ]; then
  mapfile -t apt_packages <<<"$packages"
fi

# The mirror this machine already uses (a CI machine may reach only a local mirror or a proxy).
mirror=""
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
  mirror="$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)"
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
  # `deb [options] URI suite components`: the first URI-looking field of the first deb line.
  mirror="$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; exit } }' /etc/apt/sources.list)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ -r "$keyring" ]; then
  gpg_args=(--keyring "$keyring")
else
  # Without the keyring debootstrap cannot check the Release signature at all; warn rather than fail, since
  # the .debs are still checked against the Release file's checksums (integrity, though not authenticity).
  log "warning: $keyring is missing (apt-get install debian-archive-keyring); building with --no-check-gpg"
  gpg_args=(--no-check-gpg)
fi

debootstrap_args=(--variant=minbase "--include=$include" "${gpg_args[@]}" "--cache-dir=$cache_dir" "$suite")

if [ "$dry_run" = 1 ]; then
  log "runtime $runtime: $(printf '%s\n' "$packages" | grep -c . || true) packages besides python3"
  echo "recipe: $recipe"
  echo "tag: $tag"
  echo "debootstrap ${debootstrap_args[*]} ROOTFS $mirror"
  if [ ${#apt_packages[@]} -gt 0 ]; then
    echo "chroot ROOTFS apt-get install -y --no-install-recommends ${apt_packages[*]}"
  fi
  exit 0
fi

command -v docker >/dev/null 2>&1 || die 1 "docker is not installed: sudo apt-get install -y docker.io (or run scripts/ensure-docker.sh as root)"
docker info >/dev/null 2>&1 ||
  die 1 "cannot reach the Docker daemon (docker info fails). Start dockerd: sudo bash scripts/ensure-docker.sh (it starts dockerd --storage-driver=vfs --bridge=none --iptables=false when none runs), or check DOCKER_HOST and your access to /var/run/docker.sock"

# The tagged image's ID when its recipe label is this recipe, else nothing.
current_image() {
  local label
  label="$(docker image inspect -f '{{index .Config.Labels "minedit.recipe"}}' "$tag" 2>/dev/null)" || return 0
  if [ "$label" = "$recipe" ]; then
    docker image inspect -f '{{.Id}}' "$tag"
  fi
}

image_id="$(current_image)"
if [ -n "$image_id" ]; then
  log "reusing $tag ($image_id): its recipe ${recipe:0:12} is current"
  echo "$image_id"
  exit 0
fi

[ "$(id -u)" = "0" ] || die 1 "building $tag needs root (debootstrap chroots and creates device nodes): sudo bash sandbox/docker/build-image.sh $runtime"
debootstrap_bin="$(PATH="$PATH:/usr/sbin:/sbin" command -v debootstrap || true)"
[ -n "$debootstrap_bin" ] || die 1 "debootstrap is not installed: apt-get install -y debootstrap (or run scripts/ensure-docker.sh as root)"

mkdir -p "$cache_dir"
# One build at a time per cache: two debootstraps would fight over the cached .debs, and this machine's CPU
# is shared with benchmarks. A second caller waits, then finds the first one's image and reuses it.
exec 9>"$cache_dir/build.lock"
if ! flock -n 9; then
  log "another image build holds $cache_dir/build.lock; waiting for it"
  flock 9
  image_id="$(current_image)"
  if [ -n "$image_id" ]; then
    log "reusing $tag ($image_id), built meanwhile"
    echo "$image_id"
    exit 0
  fi
fi

work="$(mktemp -d -p "${TMPDIR:-/var/tmp}" minedit-image.XXXXXX)"
rootfs="$work/rootfs"
debootstrap_log="$cache_dir/debootstrap-$runtime.log"

# Mount points under the rootfs, deepest first. debootstrap mounts proc, sysfs and (inside a container) a
# tmpfs with bind-mounted device nodes on the target; it unmounts them itself unless it is killed.
mounts_under() { awk -v root="$1" '$2 == root || index($2, root "/") == 1 { print $2 }' /proc/mounts | sort -r; }
cleanup() {
  local m
  for m in $(mounts_under "$rootfs"); do
    umount -l "$m" 2>/dev/null || true
  done
  if [ -n "$(mounts_under "$rootfs")" ]; then
    echo "build-image: error: $rootfs still has mounts; left in place (unmount them, then rm -rf $work)" >&2
    return
  fi
  # --one-file-system: never descend into a mount that survived (e.g. a bind-mounted host /dev).
  rm -rf --one-file-system "$work" 2>/dev/null || echo "build-image: warning: could not remove $work entirely (a process still writing there?)" >&2
}
trap cleanup EXIT

log "building $tag: debootstrap $suite from $mirror with $include (log: $debootstrap_log)"
if ! "$debootstrap_bin" "${debootstrap_args[@]}" "$rootfs" "$mirror" >"$debootstrap_log" 2>&1; then
  tail -n 25 "$debootstrap_log" >&2
  die 1 "debootstrap failed (full log: $debootstrap_log)"
fi
log "debootstrap done: $(du -sh --one-file-system "$rootfs" | cut -f1)"
[ -z "$(mounts_under "$rootfs")" ] || die 1 "debootstrap left mounts under $rootfs: $(mounts_under "$rootfs" | tr '\n' ' ')"

if [ ${#apt_packages[@]} -gt 0 ]; then
  apt_log="$cache_dir/apt-$runtime.log"
  log "installing ${#apt_packages[@]} packages with apt-get in the new root (log: $apt_log)"
  # What the packages' maintainer scripts need: /proc and the host's device nodes, mounted for this stage
  # only (cleanup unmounts them if it is cut short). apt's downloads go to the same cache as debootstrap's.
  mkdir -p "$cache_dir/apt-archives/partial"
  mount -t proc proc "$rootfs/proc"
  mount --rbind /dev "$rootfs/dev"
  mount --bind "$cache_dir/apt-archives" "$rootfs/var/cache/apt/archives"
  # debootstrap copied this machine's resolv.conf; its sources.list names the mirror it used.
  if ! {
    chroot "$rootfs" apt-get update -q &&
      chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${apt_packages[@]}"
  } >"$apt_log" 2>&1; then
    tail -n 25 "$apt_log" >&2
    die 1 "apt-get failed in the new root (full log: $apt_log)"
  fi
  for m in $(mounts_under "$rootfs"); do umount -l "$m"; done
  [ -z "$(mounts_under "$rootfs")" ] || die 1 "could not unmount $(mounts_under "$rootfs" | tr '\n' ' ')"
  log "apt-get done: $(du -sh --one-file-system "$rootfs" | cut -f1)"
fi

# Trim what no sandboxed run reads: apt's package lists and caches (apt never runs in the sandbox), docs,
# man pages, translations (the sandbox runs in the C locale; C.UTF-8 itself lives in /usr/lib/locale) and
# the install logs. Python's precompiled __pycache__ stays: the containers run read-only, so a missing .pyc
# would be recompiled on every import.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
[ ! -d "$rootfs/usr/share/locale" ] ||
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'C' ! -name 'C.*' ! -name locale.alias -exec rm -rf {} +
find "$rootfs/var/log" -mindepth 1 -type f -delete
# debootstrap leaves device nodes in /dev (Docker mounts its own /dev in every container) and copies the
# build host's resolv.conf and hostname (Docker bind-mounts its own over them): none belong in the image.
rm -rf "$rootfs"/dev/*
rm -f "$rootfs/etc/resolv.conf"
: >"$rootfs/etc/hostname"
log "trimmed: $(du -sh --one-file-system "$rootfs" | cut -f1)"

previous="$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)"
# No USER, CMD or WORKDIR: the server sets them for each container it creates.
log "importing into Docker as $tag"
tar --numeric-owner -C "$rootfs" -c . |
  docker import \
    --change "LABEL minedit.runtime=$runtime" \
    --change "LABEL minedit.recipe=$recipe" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    - "$tag" >/dev/null
image_id="$(docker image inspect -f '{{.Id}}' "$tag")"

# The image the tag moved away from is now untagged; with the vfs storage driver it still holds a full copy
# of its rootfs on disk, so remove it (Docker refuses while a container uses it, which is fine).
if [ -n "$previous" ] && [ "$previous" != "$image_id" ]; then
  docker image rm "$previous" >/dev/null 2>&1 && log "removed the previous $tag ($previous)" || true
fi

log "built $tag ($image_id, $(docker image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
echo "$image_id"

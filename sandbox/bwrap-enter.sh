#!/bin/sh
# What src/sandbox/bwrap.ts runs before bwrap when minedit runs as root: the steps that bound a sandbox as
# a whole, which bwrap itself cannot take. Every step happens before COMMAND (setpriv, then bwrap) starts,
# so nothing of the sandbox ever runs outside them; this script then becomes COMMAND (exec: same pid).
#
#   bwrap-enter.sh PROCS MOUNT_DIR SCRATCH_OPTIONS SHM_OPTIONS -- COMMAND...
#
#   PROCS            cgroup.procs files joined by ":" (src/sandbox/run-cgroup.ts), or "-": this process
#                    joins those cgroups, and everything the sandbox starts is then counted in them.
#   MOUNT_DIR        "-", or a host directory with empty `tmp` and `shm` subdirectories: in a private mount
#                    namespace of its own (invisible to the host, and gone with the sandbox's last process)
#                    a tmpfs with SCRATCH_OPTIONS is mounted on MOUNT_DIR/tmp and one with SHM_OPTIONS on
#                    MOUNT_DIR/shm, for bwrap to bind as /tmp and /dev/shm. Unlike bwrap's own --tmpfs,
#                    these take `nr_inodes`: a run cannot fill kernel memory with empty files, nor leave a
#                    scratch that takes seconds to empty.
set -eu

if [ "${1:-}" = "--mounted" ]; then
  dir=$2 scratch=$3 shm=$4
  shift 5
  mount -t tmpfs -o "$scratch" minedit-scratch "$dir/tmp"
  mount -t tmpfs -o "$shm" minedit-shm "$dir/shm"
  exec "$@"
fi

procs=$1 dir=$2 scratch=$3 shm=$4
shift 5
if [ "$procs" != "-" ]; then
  old_ifs=$IFS
  IFS=:
  for file in $procs; do
    echo $$ >"$file"
  done
  IFS=$old_ifs
fi
if [ "$dir" = "-" ]; then
  exec "$@"
fi
exec unshare --mount --propagation private -- /bin/sh "$0" --mounted "$dir" "$scratch" "$shm" -- "$@"

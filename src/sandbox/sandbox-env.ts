/**
 * What a program sees inside either backend (bwrap.ts, docker-spec.ts): where the configured interpreter
 * appears, the scratch directory it runs in, the size of /dev/shm, and the environment. The backends build
 * the sandbox differently; a program must not be able to tell which one it runs in.
 */

/** Where the configured interpreter appears inside. */
export const SANDBOX_BIN = "/opt/minedit/bin";
/** The scratch directory: the working directory of every run, holding its files; writable. */
export const SCRATCH = "/tmp";
/** Size of the scratch directory unless a backend's `scratchBytes` option says otherwise. */
export const SCRATCH_BYTES = 128 * 1024 * 1024;
/** Size of /dev/shm (POSIX semaphores and shared memory, e.g. `multiprocessing`). */
export const SHM_BYTES = 64 * 1024 * 1024;

/**
 * Environment inside (a runtime adds its own, e.g. a headless matplotlib). Fixed hash seed so set/dict
 * iteration order (and so test outcomes) are reproducible; single-threaded BLAS so a numpy import fits the
 * address-space limit on many-core hosts and runs are comparable.
 */
export const SANDBOX_ENV: Readonly<Record<string, string>> = {
  PATH: `${SANDBOX_BIN}:/usr/local/bin:/usr/bin:/bin`,
  HOME: SCRATCH,
  TMPDIR: SCRATCH,
  LANG: "C.UTF-8",
  PYTHONHASHSEED: "0",
  PYTHONDONTWRITEBYTECODE: "1",
  OPENBLAS_NUM_THREADS: "1",
  OMP_NUM_THREADS: "1",
  MKL_NUM_THREADS: "1",
};

/**
 * Out of memory as the program itself reports it. Under RLIMIT_AS an allocation fails rather than the
 * kernel killing the process, so the runtime's own message on stderr is the evidence; every backend and
 * the stdio runner read it the same way.
 */

/** How much of stderr the out-of-memory heuristic looks at. */
const MEMORY_SCAN_BYTES = 4096;
/** What runtimes print when an allocation fails under RLIMIT_AS. */
const MEMORY_MESSAGE =
  /\bMemoryError\b|std::bad_alloc|Cannot allocate memory|[Oo]ut of memory|\bjava\.lang\.OutOfMemoryError\b/;

/**
 * Whether a failed program's stderr shows an allocation failure (RLIMIT_AS makes allocations fail rather
 * than the kernel kill, so the runtime's own report is the evidence). Shared with the stdio runner, which
 * applies it per case to what its in-sandbox harness reports.
 */
export function stderrShowsOutOfMemory(stderr: string): boolean {
  return MEMORY_MESSAGE.test(stderr.slice(-MEMORY_SCAN_BYTES));
}

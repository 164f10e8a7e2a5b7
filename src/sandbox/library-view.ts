/**
 * What a runtime's bwrap sandbox sees of the host's library directories: the shape runtime-libraries.ts
 * computes from dpkg and library-view-cache.ts remembers on disk (types only).
 */

/** One thing bound back into a hidden library directory, parents before children. */
export type LibraryEntry =
  | { kind: "bind"; path: string }
  | { kind: "symlink"; path: string; target: string }
  /** A directory shared with packages outside the runtime: made empty, its runtime part bound inside. */
  | { kind: "dir"; path: string }
  /**
   * An entry of the standard library's directory from a package outside the runtime, covered: by a
   * package whose import fails as a missing module's (`package` for a directory, `module` for a `.py`
   * file), or by an empty file (`nothing`: an extension module, which then fails to load).
   */
  | { kind: "cover"; path: string; by: "package" | "module" | "nothing" };

/** What a runtime's sandbox sees of the library directories. */
export type LibraryView = {
  /**
   * Each hidden under an empty read-only tmpfs: the interpreter's library directories, and directories of
   * the standard library's that are mostly other packages'.
   */
  hidden: readonly string[];
  /** What is bound back into them, parents before children. */
  entries: readonly LibraryEntry[];
  /** The top-level modules the runtime's entries give (`numpy`, `six`, `cv2`, …). */
  modules: ReadonlySet<string>;
  /** The runtime's packages dpkg does not have installed. */
  missingPackages: readonly string[];
};

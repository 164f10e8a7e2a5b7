/**
 * The syscall filter of syscall-policy.ts in each backend's form (docs/sandbox.md, "The syscall filter"):
 * the classic BPF program `bwrap --seccomp FD` loads, built by libseccomp (Debian's python3-seccomp,
 * through sandbox/seccomp/build_filter.py, run on the host with the sandbox's interpreter), and the Docker
 * seccomp profile, built here from the same rules.
 *
 * Both start from the syscall names the host's libseccomp knows for its architecture: the allow-list is
 * "every known syscall but the denied ones", so the list follows the host instead of a table kept here,
 * and a syscall newer than libseccomp's table answers ENOSYS. Without the bindings nothing runs: the
 * filter is never silently left out (MineditError Unavailable, saying what to install).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { ErrorCode, MineditError } from "../errors.js";
import { contentDigest, type FactCodec, fileStamp, HostFactsCache } from "./host-facts-cache.js";
import { EPERM, type FilterRule, filterRules, UNKNOWN_SYSCALL_ERRNO } from "./syscall-policy.js";

/** The filter for one host: the BPF program and the names it was built from. */
export type SyscallFilter = {
  /** `struct sock_filter[]` in native byte order, what `bwrap --seccomp FD` reads from FD. */
  readonly bpf: Buffer;
  /** Every syscall name the host's libseccomp knows for the native architecture, in number order. */
  readonly knownSyscalls: readonly string[];
};

/** The interpreter that builds the filter when no sandbox interpreter is configured: Debian's. */
export const DEFAULT_FILTER_PYTHON = "/usr/bin/python3";
/** What installs libseccomp's Python bindings on Debian and Ubuntu. */
export const INSTALL_SECCOMP = "apt-get install -y python3-seccomp";

const BUILDER = fileURLToPath(new URL("../../sandbox/seccomp/build_filter.py", import.meta.url));
/** build_filter.py's exit status when `import seccomp` fails. */
const NO_BINDINGS = 2;
/** A build takes ~0.15 s; this only bounds a wedged interpreter. */
const BUILD_TIMEOUT_MS = 60_000;

const cache = new Map<string, Promise<SyscallFilter>>();

/**
 * The filter built with `pythonPath` (the sandbox's interpreter, which must import `seccomp`), once per
 * process and interpreter, and remembered on disk between processes (host-facts-cache.ts). Rejects with
 * `MineditError(Unavailable)` when it cannot be built, saying what to install; a failed build is not
 * cached, so a later call tries again.
 */
export function loadSyscallFilter(pythonPath: string = DEFAULT_FILTER_PYTHON): Promise<SyscallFilter> {
  let filter = cache.get(pythonPath);
  if (filter === undefined) {
    filter = rememberedFilter(pythonPath, new HostFactsCache());
    cache.set(pythonPath, filter);
    filter.catch(() => cache.delete(pythonPath));
  }
  return filter;
}

const NAMES: FactCodec<string[]> = {
  parse: (value) =>
    Array.isArray(value) && value.length > 0 && value.every((name) => typeof name === "string")
      ? value
      : null,
};
const PROGRAM: FactCodec<Buffer> = {
  parse: (value) => {
    if (typeof value !== "string") return null;
    const bpf = Buffer.from(value, "base64");
    return isBpfProgram(bpf) ? bpf : null;
  },
  serialize: (bpf) => bpf.toString("base64"),
};

/**
 * The filter from `facts` when both its parts are remembered, else built (and both remembered). The names
 * depend on the interpreter and its libseccomp (a package: in the facts' key) and the builder; the
 * program on those and the rules computed here from the names, so a change of the policy is a miss
 * without anything to bump. The bytes are the builder's own, as when it runs (syscall-filter.test.ts).
 */
export async function rememberedFilter(pythonPath: string, facts: HostFactsCache): Promise<SyscallFilter> {
  const asked = [fileStamp(pythonPath), contentDigest(BUILDER)];
  const namesKey = ["syscall names", ...asked];
  const programKey = (names: readonly string[]) => [
    "syscall filter",
    ...asked,
    createHash("sha256").update(builderInput(names)).digest("hex"),
  ];
  const knownSyscalls = facts.lookup(namesKey, NAMES);
  const bpf = knownSyscalls === null ? null : facts.lookup(programKey(knownSyscalls), PROGRAM);
  if (knownSyscalls !== null && bpf !== null) return { bpf, knownSyscalls };
  const built = await build(pythonPath);
  facts.store(namesKey, [...built.knownSyscalls], NAMES);
  facts.store(programKey(built.knownSyscalls), built.bpf, PROGRAM);
  return built;
}

/** What the builder reads on stdin once it has printed `names`: the rules computed from them. */
function builderInput(names: readonly string[]): string {
  return JSON.stringify({ defaultErrno: UNKNOWN_SYSCALL_ERRNO, rules: filterRules(names) });
}

/** Each instruction is 8 bytes; the kernel refuses programs above BPF_MAXINSNS (4096) instructions. */
function isBpfProgram(bpf: Buffer): boolean {
  return bpf.length > 0 && bpf.length % 8 === 0 && bpf.length / 8 <= 4096;
}

/**
 * One run of the builder's dialog (build_filter.py `filter`): it prints the names it knows on one line, the
 * rules are computed from them here and written back, and it writes the program. One interpreter, not one
 * per step: each start is ~0.1 s on the path of a `minedit serve` start-up.
 */
function build(pythonPath: string): Promise<SyscallFilter> {
  return new Promise((resolve, reject) => {
    // -I: no environment variables, user site-packages or cwd on sys.path (the system's dist-packages,
    // where Debian installs the bindings, stay).
    const child = spawn(pythonPath, ["-I", BUILDER, "filter"], {
      stdio: ["pipe", "pipe", "pipe"],
      timeout: BUILD_TIMEOUT_MS,
    });
    const out: Buffer[] = [];
    let err = "";
    let knownSyscalls: string[] | undefined;
    let refused: MineditError | undefined;
    /** The first line is the names' JSON; answered once it is whole (BPF bytes may hold newlines: after it). */
    const answerNames = () => {
      const received = Buffer.concat(out);
      const end = received.indexOf(0x0a);
      if (end < 0) return;
      const names = received.subarray(0, end).toString("utf8");
      let input: string;
      try {
        const parsed: unknown = JSON.parse(names);
        if (!Array.isArray(parsed) || !parsed.every((name) => typeof name === "string")) throw new Error();
        input = builderInput(parsed);
        knownSyscalls = parsed;
      } catch {
        refused = unavailable(
          `${BUILDER} printed ${JSON.stringify(names.slice(0, 200))}, not a JSON list of names`,
        );
        child.kill();
        return;
      }
      child.stdin.end(input);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      out.push(chunk);
      if (knownSyscalls === undefined && refused === undefined) answerNames();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      reject(unavailable(`cannot run ${pythonPath} to build it (${error.message})`));
    });
    child.on("close", (code, signal) => {
      if (refused !== undefined) return reject(refused);
      if (code === NO_BINDINGS) {
        return reject(
          unavailable(
            `${pythonPath} cannot import libseccomp's Python bindings, which build it: \`${INSTALL_SECCOMP}\`` +
              " (Debian's, for /usr/bin/python3; another interpreter needs them on its path)",
          ),
        );
      }
      if (code !== 0 || knownSyscalls === undefined) {
        const status = code === 0 ? "exit 0 before printing the names" : (signal ?? `exit ${code}`);
        return reject(unavailable(`${BUILDER} failed (${status}): ${err.trim()}`));
      }
      const received = Buffer.concat(out);
      const bpf = received.subarray(received.indexOf(0x0a) + 1);
      if (!isBpfProgram(bpf)) {
        return reject(
          unavailable(`${BUILDER} wrote ${bpf.length} bytes, not a BPF program the kernel takes`),
        );
      }
      resolve({ bpf: Buffer.from(bpf), knownSyscalls });
    });
    child.stdin.on("error", () => {}); // an early exit is reported by "close"
  });
}

function unavailable(message: string): MineditError {
  return new MineditError(ErrorCode.Unavailable, `syscall filter: ${message}`);
}

/** The part of Docker's seccomp profile format (moby's profiles/seccomp) these profiles use. */
export type DockerSeccompProfile = {
  defaultAction: "SCMP_ACT_ERRNO";
  defaultErrnoRet: number;
  syscalls: {
    names: string[];
    action: "SCMP_ACT_ALLOW" | "SCMP_ACT_ERRNO";
    errnoRet?: number;
    args?: { index: number; value: number; valueTwo: number; op: string }[];
  }[];
};

const DOCKER_OPS = { eq: "SCMP_CMP_EQ", ne: "SCMP_CMP_NE", masked_eq: "SCMP_CMP_MASKED_EQ" } as const;

/**
 * The Docker seccomp profile of the same filter, for a daemon whose libseccomp knows `knownSyscalls` (the
 * host's, when the daemon is local): an allow-list whose default is ENOSYS, the allowed names in one
 * entry, the refused ones in one entry per errno, and one entry per conditional rule (one comparison per
 * argument, which runc ANDs). No `architectures`: the container's filter is for the native architecture
 * only, and libseccomp kills a process that enters through another (int 0x80, x32). Pure.
 *
 * clone3 has an entry of its own (ENOSYS) although the default says the same: Docker 20.10 (Debian
 * bookworm's docker.io) drops `defaultErrnoRet`, so its containers answer EPERM for every syscall the
 * profile does not name, and glibc creates threads with clone3 and falls back to clone only on ENOSYS.
 *
 * `gvisor`: for runsc started with `--oci-seccomp`, which compiles the profile itself and answers EPERM
 * for every errno action (runsc/specutils/seccomp: "runc always returns EPERM"), even an explicit ENOSYS.
 * A syscall refused with another errno than EPERM (clone3) is then allowed instead, and gVisor's own
 * kernel answers it (ENOSYS in runsc 20221219; a clone3 of the sandbox's own kernel in later ones), so
 * that threads still start.
 */
export function dockerSeccompProfile(
  knownSyscalls: readonly string[],
  options: { gvisor?: boolean } = {},
): DockerSeccompProfile {
  const rules = filterRules(knownSyscalls).map(
    (r): FilterRule =>
      options.gvisor === true && r.action !== "allow" && r.action.errno !== EPERM
        ? { ...r, action: "allow" }
        : r,
  );
  const unconditional = rules.filter((r) => r.args.length === 0);
  const errnos = [...new Set(unconditional.flatMap((r) => (r.action === "allow" ? [] : [r.action.errno])))];
  const named = (errno: number | null) =>
    unconditional
      .filter((r) => (r.action === "allow" ? errno === null : r.action.errno === errno))
      .map((r) => r.syscall);
  return {
    defaultAction: "SCMP_ACT_ERRNO",
    defaultErrnoRet: UNKNOWN_SYSCALL_ERRNO,
    syscalls: [
      { names: named(null), action: "SCMP_ACT_ALLOW" },
      ...errnos
        .sort((a, b) => a - b)
        .map((errno) => ({ names: named(errno), action: "SCMP_ACT_ERRNO" as const, errnoRet: errno })),
      ...rules
        .filter((r) => r.args.length > 0)
        .map((r) => ({
          names: [r.syscall],
          ...(r.action === "allow"
            ? { action: "SCMP_ACT_ALLOW" as const }
            : { action: "SCMP_ACT_ERRNO" as const, errnoRet: r.action.errno }),
          args: r.args.map((c) => ({
            index: c.index,
            value: c.value,
            valueTwo: c.valueTwo ?? 0,
            op: DOCKER_OPS[c.op],
          })),
        })),
    ],
  };
}

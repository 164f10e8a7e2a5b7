/**
 * Runs a host tool to its end and collects what it prints: dpkg-query and apt-get (which runtimes' Debian
 * packages are installed, which files they own), and the interpreter asked about its modules. Outside any
 * sandbox: these are questions about the host.
 */
import { spawn } from "node:child_process";

/** How a host command ended; `spawnError`: it could not be started (its reason is in `stderr`). */
export type HostCommandResult = { code: number | null; stdout: string; stderr: string; spawnError: boolean };

/** The environment of dpkg-query and apt-get: the system's directories, not the server's environment. */
export const SYSTEM_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  LANG: "C.UTF-8",
};

/** Runs `command` with `args` in exactly `env` (nothing of this process's environment) and waits for it. */
export function runHostCommand(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<HostCommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...env } });
    // Decoded once at the end: a character split between two chunks stays whole.
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString("utf8");
    child.once("error", (error) =>
      resolve({ code: null, stdout: text(out), stderr: error.message, spawnError: true }),
    );
    child.once("close", (code) => resolve({ code, stdout: text(out), stderr: text(err), spawnError: false }));
  });
}

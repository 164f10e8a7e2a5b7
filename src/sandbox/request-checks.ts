/**
 * The checks every backend makes on an `ExecutionRequest` before anything starts: a bad file path or
 * limit is the caller's error (`InvalidArgument`, naming the field), never a sandbox fault.
 */
import { ErrorCode, MineditError } from "../errors.js";
import type { ExecutionLimits } from "./sandbox.js";

/**
 * Scratch-relative path check (a key of a request's `files`): no absolute paths, no `..`, no
 * empty segments. Returns the path's segments.
 */
export function checkRelativePath(path: string): string[] {
  const parts = path.split("/");
  if (path === "" || path.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..")) {
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `sandbox file path ${JSON.stringify(path)} is not a plain relative path`,
      {
        field: "files",
      },
    );
  }
  return parts;
}

/** Every limit given must be a positive safe integer (zero or a fraction is no limit a kernel takes). */
export function checkLimits(limits: ExecutionLimits): void {
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new MineditError(ErrorCode.InvalidArgument, `limit ${key} must be a positive integer`, {
        field: `limits.${key}`,
      });
    }
  }
}

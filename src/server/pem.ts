/**
 * The TLS files both endpoints read (gRPC's server.ts and OpenRLHF's openrlhf-http.ts), apart from
 * either so that the HTTP endpoint does not load gRPC.
 */
import { readFile } from "node:fs/promises";
import { ErrorCode, MineditError } from "../errors.js";

/** A PEM file, or `InvalidArgument` naming the config field that gave its path. */
export async function readPem(path: string, field: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MineditError(
      ErrorCode.InvalidArgument,
      `${field}: cannot read ${JSON.stringify(path)}: ${reason}`,
      {
        field,
      },
    );
  }
}

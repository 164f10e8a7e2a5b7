/** minedit's version, as package.json says (written into export manifests and printed by `--version`). */
import { readFileSync } from "node:fs";

/** The version in package.json (one level up from both src/ and dist/). */
export function version(): string {
  const text = readFileSync(new URL("../package.json", import.meta.url), "utf8");
  return String((JSON.parse(text) as { version?: unknown }).version);
}

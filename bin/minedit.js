#!/usr/bin/env node
// Launcher for the `minedit` CLI: the implementation is the compiled TypeScript in dist/.
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("minedit: dist/cli/main.js is missing: run `npm run build` first\n");
  process.exit(3);
}
const { main } = await import(entry.href);
// exitCode rather than exit(): lets stdout drain before the process ends.
process.exitCode = await main(process.argv.slice(2));

import { defineConfig } from "vitest/config";
import SkipReporter from "./tests/setup/skip-reporter.js";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    // Builds dist/ once before any file runs: the tests that spawn the CLI or a worker run the current code.
    globalSetup: ["tests/setup/build-dist.ts"],
    // The default reporter keeps its closing count line; the skip reporter then lists what was skipped and why.
    reporters: ["default", new SkipReporter()],
  },
});

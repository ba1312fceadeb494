import { defineConfig } from "vitest/config";

// Test files spawn real MCP servers and run real models: processes, not threads, and no more
// workers than the 2-core CI machine has.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/temp-root.ts"],
    pool: "forks",
    maxWorkers: 2,
    // a guard against a hang, not a speed check (bench/ measures speed): a 2-core machine with
    // both workers busy runs a 20 s test in over 60 s (a CI run beside other jobs timed out 8)
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});

import { defineConfig } from "vitest/config";

// Test files spawn real MCP servers and run real models: processes, not threads, and no more
// workers than the 2-core CI machine has.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/temp-root.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

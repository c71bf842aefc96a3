import { defineConfig } from "vitest/config";

// The browser tests: one real harness (e2e/setup.ts), one file at a time, Debian's chromium.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    globalSetup: ["e2e/setup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});

import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A passing test's logs (request lines, the fault tests' stack traces) stay quiet; a failing one shows its own.
    silent: "passed-only",
    // Only tests slower than this are listed by name when they pass: a green run stays short.
    slowTestThreshold: 10_000,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two files at a time: each test's API runs in processes of its own on a fresh database, so files do not
    // share state, and most of a file's time is spent waiting on those processes. Not more: each holds a few
    // processes of its own, and the suite must pass on a busy two-core machine.
    fileParallelism: true,
    maxWorkers: 2,
    // A migrated data directory the tests' API processes start from (test/globalSetup.ts).
    globalSetup: ["test/globalSetup.ts"]
  }
})

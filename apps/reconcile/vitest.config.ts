import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A passing test's logs (request lines, the fault tests' stack traces) stay quiet; a failing one shows its own.
    silent: "passed-only",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false
  }
})

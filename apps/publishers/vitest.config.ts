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
    fileParallelism: false
  }
})

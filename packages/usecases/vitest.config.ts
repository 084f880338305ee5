import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A passing test's logs (request lines, the fault tests' stack traces) stay quiet; a failing one shows its own.
    silent: "passed-only",
    // Only tests slower than this are listed by name when they pass: a green run stays short.
    slowTestThreshold: 10_000,
    // A deadline for a hang, not a speed: the integrity pass's flood test takes 7 s idle and passed 30 s on a
    // two-core machine with a CPU-bound job and the other packages' suites beside it.
    testTimeout: 120_000
  }
})

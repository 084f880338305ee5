import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    // A migrated data directory the tests' API processes start from (test/globalSetup.ts).
    globalSetup: ["test/globalSetup.ts"]
  }
})

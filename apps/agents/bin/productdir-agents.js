#!/usr/bin/env node
// Committed launcher: npm links bins at install time, before the build creates dist/.
// The compile cache (in the OS temp directory) halves start-up, which is most of a short run.
import { enableCompileCache } from "node:module"

enableCompileCache?.()
await import("../dist/main.js")

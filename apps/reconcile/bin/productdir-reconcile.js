#!/usr/bin/env -S node --max-old-space-size=256 --max-semi-space-size=8
// Committed launcher: npm links bins at install time, before the build creates dist/.
// The heap caps keep RSS flat on large inputs: the live heap stays small, but V8 would otherwise
// let garbage reach several hundred MB between collections. The compile cache (in the OS temp
// directory) halves start-up, which is most of a short run.
import { enableCompileCache } from "node:module"

enableCompileCache?.()
await import("../dist/main.js")

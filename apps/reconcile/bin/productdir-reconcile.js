#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=16384 MALLOC_ARENA_MAX=2 node --max-old-space-size=256 --max-semi-space-size=1
// Committed launcher: npm links bins at install time, before the build creates dist/. It runs the
// build's one bundle (rolldown.config.ts): the modules loaded one by one held ~40 MB more.
// The heap caps keep RSS flat on large inputs: the live heap stays small, but V8 would otherwise
// let garbage reach several hundred MB between collections. A young generation of 1 MB semi-spaces, not
// 8, held the integrity pass at ten million votes 35-40 MB lower, for a few per cent more CPU (docs/benchmarks.md).
// The fixed mmap threshold (glibc's; others ignore it) gives every buffer of 16 KiB or more back to the system
// when it is freed: glibc's own threshold rises to the size of the first large buffer freed, after which the
// integrity pass's messages were carved from the heap and left it fragmented (peak RSS at 10,000,000 votes
// 489-495 MB, 456-460 MB at 128 KiB; at 16 KiB the database driver's 64 KiB read buffers go back too, 30 MB
// less held through the pass). Two malloc arenas, not one per thread: V8's collector threads free what the
// main thread allocated. The compile cache (in the OS temp directory) halves start-up, most of a short run.
// A namespace import, not a named one: an older Node must reach the version check below, and a named
// import of an export it lacks (enableCompileCache) fails before any line runs.
import * as nodeModule from "node:module"

// The oldest Node the apps and their dependencies run on (the root package.json's engines): node:sqlite,
// undici 8. `npx productdir-reconcile` and `npm run …` use the Node 24 that npm install brings, whatever the PATH's is.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `productdir-reconcile needs Node.js 22.19 or later, not ${process.version}: run it as \`npx productdir-reconcile\` in the repository (it uses the Node 24 npm install brought), or install a newer Node.\n`
  )
  process.exit(2)
}

nodeModule.enableCompileCache()
await import("../dist/bundle/main.js")

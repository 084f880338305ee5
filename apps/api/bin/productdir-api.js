#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=176 --max-semi-space-size=8 --no-allocation-site-pretenuring
// The API as `npm start` runs it (docs/operations.md, "Memory"). The API's live heap is small (tens of MB:
// the read cache's bodies live outside it), but without a cap V8 lets garbage grow the heap to 500-700 MB
// under load; capped, RSS stays under 300 MB with a full default cache, at the same throughput. Two malloc
// arenas instead of one per thread keep native memory from fragmenting the same way. 176 MB, not 160: the
// default CACHE_BYTES (96 MiB, a 20,000-product catalog's records) stays within half the heap limit (200 MiB),
// as the start-up check asks. A CACHE_BYTES far above its default needs a larger cap: the API warns at start
// when it may not fit. No allocation-site pretenuring: while the cache fills, requests wait on the store and
// Node's HTTP objects of a request (its IncomingMessage, the keep-alive timer re-armed after each answer) outlive
// the young generation, and V8 then allocates every later request's objects of those kinds straight in the old
// generation, whose collections (every 1-2 s under load, 5-13 ms each) stopped every request in flight: the
// cached reads' p99 was 2-2.5× that of a server writing the same bytes. Without it, a mark-compact in 10 s of
// reads or none, and that server's p99 (docs/benchmarks.md). A larger young generation did not do it.

// A namespace import, not a named one: an older Node must reach the version check below, and a named
// import of an export it lacks (enableCompileCache) fails before any line runs.
import * as nodeModule from "node:module"

// The oldest Node the apps and their dependencies run on (the root package.json's engines): node:sqlite,
// undici 8. `npm start` and `npx productdir-api` use the Node 24 that npm install brings, whatever the PATH's is.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `productdir-api needs Node.js 22.19 or later, not ${process.version}: run \`npm start\` in the repository (it uses the Node 24 npm install brought), or install a newer Node.\n`
  )
  process.exit(1)
}

nodeModule.enableCompileCache()
await import("../dist/main.js")

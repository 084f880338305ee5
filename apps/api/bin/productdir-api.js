#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-old-space-size=160 --max-semi-space-size=8
// The API as `npm start` runs it (docs/operations.md, "Memory"). The API's live heap is small (tens of MB:
// the read cache's bodies live outside it), but without a cap V8 lets garbage grow the heap to 500-700 MB
// under load; capped, RSS stays under 300 MB with a full default cache, at the same throughput. Two malloc
// arenas instead of one per thread keep native memory from fragmenting the same way. A CACHE_BYTES far
// above its default needs a larger cap: the API warns at start when it may not fit.
import { enableCompileCache } from "node:module"

enableCompileCache?.()
await import("../dist/main.js")

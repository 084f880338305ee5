/**
 * GET /metrics: this process's figures in the Prometheus text format (0.0.4):
 * the read cache's, and the process's memory under the names Prometheus' Node
 * clients use, so an operator sees whether the cache's bytes, V8's heap or
 * native memory is what grows.
 */
import type { CacheStats } from "./ReadCache.ts"

const line = (name: string, type: "counter" | "gauge", help: string, value: number) =>
  `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`

const memoryText = (): string => {
  const memory = process.memoryUsage()
  return [
    line("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", memory.rss),
    line("nodejs_heap_size_total_bytes", "gauge", "V8 heap size in bytes.", memory.heapTotal),
    line("nodejs_heap_size_used_bytes", "gauge", "V8 heap in use, in bytes.", memory.heapUsed),
    line(
      "nodejs_external_memory_bytes",
      "gauge",
      "Memory outside V8's heap held by JavaScript objects (buffers), in bytes.",
      memory.external
    )
  ].join("")
}

export const prometheusText = (stats: CacheStats): string =>
  [
    line("productdir_read_cache_hits_total", "counter", "Product reads a request asked for, answered from the read cache.", stats.hits),
    line(
      "productdir_read_cache_misses_total",
      "counter",
      "Product reads a request asked for that the cache did not hold: each started a load from the store.",
      stats.misses
    ),
    line(
      "productdir_read_cache_waits_total",
      "counter",
      "Product reads a request asked for while the same read was being loaded: it waited for that load.",
      stats.waits
    ),
    line("productdir_read_cache_evictions_total", "counter", "Entries dropped to stay within the byte budget.", stats.evictions),
    line("productdir_read_cache_invalidations_total", "counter", "Entries dropped because their product changed.", stats.invalidations),
    line("productdir_read_cache_flushes_total", "counter", "Times every entry was dropped (the change feed was cut off).", stats.flushes),
    line(
      "productdir_read_cache_refreshes_total",
      "counter",
      "Loads of a read again after its product changed (refresh ahead).",
      stats.refreshes
    ),
    line("productdir_read_cache_entries", "gauge", "Entries held.", stats.entries),
    line(
      "productdir_read_cache_bytes",
      "gauge",
      "Bytes held: bodies, their compressed variants and each entry's bookkeeping.",
      stats.bytes
    ),
    line("productdir_read_cache_budget_bytes", "gauge", "CACHE_BYTES: the most the cache may hold.", stats.budget),
    memoryText()
  ].join("")

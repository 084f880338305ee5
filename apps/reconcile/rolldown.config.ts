/**
 * productdir-reconcile runs as one tree-shaken bundle of its compiled modules (dist/main.js), not as the
 * modules themselves. Loading them one by one costs ~40 MB of a process's memory before its first line
 * (the `effect` barrel alone brings every module of effect: 46 MB over a bare node), and the integrity pass
 * at ten million votes is held to 300 MB (docs/benchmarks.md). PGlite stays a package of its own: it finds
 * its WebAssembly and data files beside its own modules.
 */
// Types only: bench/src/crowd-pass.ts imports `external` from here into its children's bundle, where importing
// rolldown itself loaded the bundler and its native binding into every child (11 MB at start, not the CLI's).
import type { RolldownOptions } from "rolldown"

/** What stays outside the bundle (bench/src/crowd-pass.ts bundles its children with the same). */
export const external = [/^@electric-sql\/pglite(\/|$)/, "pg-native"]

export default {
  input: "dist/main.js",
  platform: "node",
  external,
  output: { dir: "dist/bundle", format: "esm", sourcemap: true }
} satisfies RolldownOptions

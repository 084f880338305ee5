/**
 * Test support: the in-memory store with its state reachable, as SQL is for
 * the PostgreSQL store, so the contract suite can inject drift behind the
 * services' backs. Not for production code.
 */
import { Layer } from "effect"
import type { Stores } from "@productdir/domain"
import { layerServices, layerState } from "./index.ts"
import type { MemoryState } from "./State.ts"

export { MemoryState, type State } from "./State.ts"

/** Every store service, and the state they share. */
export const layerWithState: Layer.Layer<Stores | MemoryState> = layerServices.pipe(Layer.provideMerge(layerState))

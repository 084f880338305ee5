/**
 * Test support: the in-memory store with its state reachable, as SQL is for
 * the PostgreSQL store, so the contract suite can inject drift behind the
 * services' backs. Not for production code.
 */
import { Layer } from "effect"
import type { Stores } from "@productdir/domain"
import * as MemoryAgentRegistry from "./MemoryAgentRegistry.ts"
import * as MemoryCatalogStore from "./MemoryCatalogStore.ts"
import * as MemoryJobLock from "./MemoryJobLock.ts"
import * as MemoryProblemStore from "./MemoryProblemStore.ts"
import * as MemoryProductChanges from "./MemoryProductChanges.ts"
import * as MemoryRateLimits from "./MemoryRateLimits.ts"
import * as MemorySettings from "./MemorySettings.ts"
import * as MemoryVoteLedger from "./MemoryVoteLedger.ts"
import { emptyState, MemoryState } from "./State.ts"

export { MemoryState, type State } from "./State.ts"

/** Every store service, and the state they share. */
export const layerWithState: Layer.Layer<Stores | MemoryState> = Layer.mergeAll(
  MemoryCatalogStore.layer,
  MemoryVoteLedger.layer,
  MemoryProblemStore.layer,
  MemoryAgentRegistry.layer,
  MemoryRateLimits.layer,
  MemoryProductChanges.layer,
  MemorySettings.layer,
  MemoryJobLock.layer
).pipe(Layer.provideMerge(Layer.sync(MemoryState, emptyState)))

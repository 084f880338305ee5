/**
 * The in-memory store: every port of the domain over one shared in-process
 * state. A real implementation, not a test double: the contract suite holds
 * it to the same behaviours as PostgreSQL, and it is what `STORE=memory` runs.
 */
import { Layer } from "effect"
import type { Stores } from "@productdir/domain"
import * as MemoryAgentRegistry from "./MemoryAgentRegistry.ts"
import * as MemoryCatalogStore from "./MemoryCatalogStore.ts"
import * as MemoryIntegrityLedger from "./MemoryIntegrityLedger.ts"
import * as MemoryJobLock from "./MemoryJobLock.ts"
import * as MemoryNonces from "./MemoryNonces.ts"
import * as MemoryProblemStore from "./MemoryProblemStore.ts"
import * as MemoryProductChanges from "./MemoryProductChanges.ts"
import * as MemoryPublisherStore from "./MemoryPublisherStore.ts"
import * as MemoryAuditTrail from "./MemoryAuditTrail.ts"
import * as MemoryRateLimits from "./MemoryRateLimits.ts"
import * as MemorySettings from "./MemorySettings.ts"
import * as MemoryVoteLedger from "./MemoryVoteLedger.ts"
import { emptyState, MemoryState } from "./State.ts"

export {
  MemoryAgentRegistry,
  MemoryCatalogStore,
  MemoryIntegrityLedger,
  MemoryJobLock,
  MemoryNonces,
  MemoryProblemStore,
  MemoryProductChanges,
  MemoryPublisherStore,
  MemoryAuditTrail,
  MemoryRateLimits,
  MemorySettings,
  MemoryVoteLedger
}

/** A fresh, empty state; provide it once and every service of one store shares it. */
export const layerState = Layer.sync(MemoryState, emptyState)

/** Every store service, over the MemoryState it is given; one set of rate-limit buckets for all. */
export const layerServices: Layer.Layer<Stores, never, MemoryState> = Layer.mergeAll(
  MemoryCatalogStore.layer,
  MemoryPublisherStore.layer,
  MemoryAuditTrail.layer,
  MemoryVoteLedger.layer,
  MemoryProblemStore.layer,
  MemoryAgentRegistry.layer,
  MemoryProductChanges.layer,
  MemorySettings.layer,
  MemoryJobLock.layer,
  MemoryNonces.layer,
  MemoryIntegrityLedger.layer
).pipe(Layer.provideMerge(MemoryRateLimits.layer))

/** Every store service over one fresh state. Each use of this layer value is one store. */
export const layer: Layer.Layer<Stores> = layerServices.pipe(Layer.provide(layerState))

/** The in-process job lock alone, for stores that live in one process (embedded PGlite in memory). */
export const layerJobLock = MemoryJobLock.layer

/** Rate limits held in this process, for stores that live in one process (embedded PGlite). */
export const layerRateLimits = MemoryRateLimits.layer

/** Every port a store adapter provides: what the apps need from "the store". */
import type { AgentRegistry } from "./AgentRegistry.ts"
import type { CatalogStore } from "./CatalogStore.ts"
import type { IntegrityLedger } from "./Integrity.ts"
import type { JobLock } from "./JobLock.ts"
import type { Nonces } from "./Nonces.ts"
import type { ProblemStore } from "./ProblemStore.ts"
import type { PublisherStore } from "./PublisherStore.ts"
import type { AuditTrail } from "./AuditTrail.ts"
import type { ProductChanges } from "../record/ProductChanges.ts"
import type { RateLimits } from "./RateLimits.ts"
import type { Settings } from "./Settings.ts"
import type { VoteLedger } from "./VoteLedger.ts"

export type Stores =
  | CatalogStore
  | PublisherStore
  | AuditTrail
  | VoteLedger
  | ProblemStore
  | AgentRegistry
  | RateLimits
  | ProductChanges
  | JobLock
  | Settings
  | Nonces
  | IntegrityLedger

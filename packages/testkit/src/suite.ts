/**
 * The store contract: one suite of behaviours every store adapter must pass
 * (in-memory, embedded PGlite, PostgreSQL), grouped by concern. Behaviours
 * share one store per run, so each works on products and categories of its own.
 */
import { beforeEach, describe, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { agentsBehaviours } from "./agents.contract.ts"
import type { ContractIt, ContractStores } from "./contractIt.ts"
import { changesBehaviours } from "./changes.contract.ts"
import { countingBehaviours } from "./counting.contract.ts"
import { catalogBehaviours } from "./catalog.contract.ts"
import { CONTRACT_SEED } from "./inputs.ts"
import { integrityBehaviours } from "./integrity.contract.ts"
import { jobsBehaviours } from "./jobs.contract.ts"
import { limitsBehaviours } from "./limits.contract.ts"
import { listingBehaviours } from "./listing.contract.ts"
import { problemsBehaviours } from "./problems.contract.ts"
import { publishersBehaviours } from "./publishers.contract.ts"
import { reconciliationBehaviours } from "./reconciliation.contract.ts"
import { searchBehaviours } from "./search.contract.ts"
import { versionsBehaviours } from "./versions.contract.ts"
import { votesBehaviours } from "./votes.contract.ts"

export type { ContractIt, ContractStores } from "./contractIt.ts"

const CONCERNS: ReadonlyArray<readonly [string, (it: ContractIt) => void]> = [
  ["catalog", catalogBehaviours],
  ["listing", listingBehaviours],
  ["search", searchBehaviours],
  ["versions", versionsBehaviours],
  ["publishers", publishersBehaviours],
  ["votes", votesBehaviours],
  ["how votes count", countingBehaviours],
  ["problems", problemsBehaviours],
  ["reconciliation", reconciliationBehaviours],
  ["agents and standing", agentsBehaviours],
  ["rate limits", limitsBehaviours],
  ["change feed", changesBehaviours],
  ["settings and job lock", jobsBehaviours],
  // Last: it moves time far ahead and gives standing to every agent that earned it.
  ["integrity ledger", integrityBehaviours]
]

export const storeContract = (name: string, stores: Layer.Layer<ContractStores, unknown>) =>
  describe(`store contract: ${name}`, () => {
    // A failure names the seed its inputs came from, so it can be replayed exactly.
    beforeEach(({ onTestFailed }) => {
      onTestFailed(() => console.error(`store contract on ${name}: inputs from CONTRACT_SEED=${CONTRACT_SEED}; rerun with it to replay`))
    })
    // Under TestClock: every store stamps time from the Effect Clock, so time moves when a behaviour says so.
    layer(stores, { timeout: "120 seconds" })((it) => {
      for (const [concern, behaviours] of CONCERNS) describe(concern, () => behaviours(it))
    })
  })

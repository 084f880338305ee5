/** What a behaviour of the store contract (suite.ts) is given: vitest's `it` over the stores and their operatorEdits. */
import type { Vitest } from "@effect/vitest"
import type { Stores } from "@productdir/domain"
import type { OperatorEdits } from "./OperatorEdits.ts"

export type ContractStores = Stores | OperatorEdits

export type ContractIt = Vitest.MethodsNonLive<ContractStores>

/** What a behaviour of the store contract (suite.ts) is given: vitest's `it` over the stores and their backdoor. */
import type { Vitest } from "@effect/vitest"
import type { Stores } from "@productdir/domain"
import type { Backdoor } from "./Backdoor.ts"

export type ContractStores = Stores | Backdoor

export type ContractIt = Vitest.MethodsNonLive<ContractStores>

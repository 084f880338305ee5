/** ProductChanges over the in-memory state: every change is made in this process and told as it is made. */
import { Effect, Layer } from "effect"
import { ProductChanges } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const make = (state: State) =>
  ProductChanges.of({
    subscribe: (listener) =>
      Effect.acquireRelease(
        Effect.sync(() => void state.listeners.add(listener)),
        () => Effect.sync(() => void state.listeners.delete(listener))
      )
  })

export const layer = Layer.effect(ProductChanges, MemoryState.useSync(make))

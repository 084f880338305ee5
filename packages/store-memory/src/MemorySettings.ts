/** Settings over the in-memory state. */
import { Effect, Layer } from "effect"
import { Settings } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const make = (state: State) =>
  Settings.of({
    getOrInit: (key, initial) =>
      Effect.sync(() => {
        if (!state.settings.has(key)) state.settings.set(key, initial)
        return state.settings.get(key)!
      })
  })

export const layer = Layer.effect(Settings, MemoryState.useSync(make))

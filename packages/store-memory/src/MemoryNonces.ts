/**
 * Nonces over the in-memory state. Expired claims are dropped as new ones come,
 * a sweep at most once a minute, so memory follows the claims still live.
 */
import { Clock, Effect, Layer } from "effect"
import { Nonces } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const SWEEP_EVERY_MS = 60_000

const make = (state: State) => {
  let lastSweep = 0
  return Nonces.of({
    claim: (key, expiresAt) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (now - lastSweep >= SWEEP_EVERY_MS) {
          lastSweep = now
          for (const [k, until] of state.nonces) if (until < now) state.nonces.delete(k)
        }
        const until = state.nonces.get(key)
        if (until !== undefined && until >= now) return false
        state.nonces.set(key, expiresAt.getTime())
        return true
      })
  })
}

export const layer = Layer.effect(Nonces, MemoryState.useSync(make))

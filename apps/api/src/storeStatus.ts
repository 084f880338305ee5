/**
 * What the doors may tell of the store (@productdir/edge/storeStatus), from the store main.ts chose: the embedded
 * database's health and a PostgreSQL server's primary and replicas. The memory store has neither.
 */
import { Effect, Layer, Option } from "effect"
import { StoreStatus } from "@productdir/edge/storeStatus"
import { ReadReplicas, StoreHealth } from "@productdir/store-postgres"

export const StoreStatusLive = Layer.effect(
  StoreStatus,
  Effect.gen(function* () {
    const health = yield* Effect.serviceOption(StoreHealth)
    const router = yield* Effect.serviceOption(ReadReplicas.ReadRouter)
    return {
      stalled: () => (Option.isSome(health) ? health.value.stalled() : undefined),
      servers: () => {
        if (Option.isNone(router)) return []
        const { primary, replicas } = router.value.servers()
        // The embedded store routes its reads too, with no server to name.
        return primary === undefined ? [] : [{ role: "primary" as const, server: primary, reachable: true }, ...replicas]
      }
    }
  })
)

/**
 * `/readyz`: whether this process can serve, and which database servers it reaches. Ready while the
 * primary answers; a replica that is down is listed as not reachable, and the service is still ready,
 * since its reads go to the primary meanwhile (docs/operations.md, "Replicas"). 503 while the primary
 * does not answer or the server drains (lifecycle.ts).
 */
import { Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { CatalogStore } from "@productdir/domain"
import { ServiceUnavailable } from "@productdir/contract"
import { ReadReplicas } from "@productdir/store-postgres"
import { storeUnavailable } from "./domainProblems.ts"
import { Lifecycle } from "./lifecycle.ts"

const NO_STORE = { "cache-control": "no-store" }

/** The readiness answer, for the handler of `/readyz`. */
export const makeReadiness = Effect.gen(function* () {
  const catalog = yield* CatalogStore
  const lifecycle = yield* Lifecycle
  // A PostgreSQL server's store lists it and its replicas; the embedded and memory stores have no servers to list.
  const router = yield* Effect.serviceOption(ReadReplicas.ReadRouter)

  return Effect.suspend(() => {
    if (lifecycle.isDraining()) {
      return Effect.fail(new ServiceUnavailable({ detail: "The server is shutting down; send requests to another instance." }))
    }
    return catalog.ping.pipe(
      Effect.map(() => {
        const { primary, replicas } = Option.isSome(router) ? router.value.servers() : { primary: undefined, replicas: [] }
        if (primary === undefined) return HttpServerResponse.jsonUnsafe({ status: "ready" }, { headers: NO_STORE })
        const servers: ReadonlyArray<ReadReplicas.ServerStatus> = [{ role: "primary", server: primary, reachable: true }, ...replicas]
        return HttpServerResponse.jsonUnsafe({ status: "ready", servers }, { headers: NO_STORE })
      }),
      Effect.catchTags({ StoreError: storeUnavailable })
    )
  })
})

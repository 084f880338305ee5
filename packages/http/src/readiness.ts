/**
 * `/readyz`: whether this process can serve, and which database servers it reaches. Ready while the
 * primary answers; a replica that is down is listed as not reachable, and the service is still ready,
 * since its reads go to the primary meanwhile (docs/operations.md, "Replicas"). 503 while the primary
 * does not answer or the server drains (packages/edge/src/lifecycle.ts).
 *
 * The servers' addresses and why one is down are an operator's figures, not a balancer's: they are
 * listed only to whoever may read /metrics where the request came (`mayReadFigures`, operatorFigures.ts), so
 * METRICS_TOKEN or METRICS_PORT closes them as it closes the metrics.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { CatalogStore } from "@productdir/domain"
import { ServiceUnavailable } from "@productdir/contract"
import { type ServerStatus, StoreStatus } from "@productdir/edge/storeStatus"
import { storeUnavailable } from "./domainProblems.ts"
import { Lifecycle } from "@productdir/edge/lifecycle"

const NO_STORE = { "cache-control": "no-store" }

/** What /readyz answers while ready. */
export interface Ready {
  readonly status: "ready"
  readonly servers?: ReadonlyArray<ServerStatus>
}

/** Whether the process is ready, with the servers it reaches when `listServers` (and the store has servers). */
export const makeReadiness = Effect.gen(function* () {
  const catalog = yield* CatalogStore
  const lifecycle = yield* Lifecycle
  // A PostgreSQL server's store lists it and its replicas; the embedded and memory stores have no servers to list.
  const store = yield* StoreStatus

  return (listServers: boolean): Effect.Effect<Ready, ServiceUnavailable> =>
    Effect.suspend(() => {
      if (lifecycle.isDraining()) {
        return Effect.fail(new ServiceUnavailable({ detail: "The server is shutting down; send requests to another instance." }))
      }
      return catalog.ping.pipe(
        Effect.map((): Ready => {
          const servers = listServers ? store.servers() : []
          return servers.length === 0 ? { status: "ready" } : { status: "ready", servers }
        }),
        Effect.catchTags({ StoreError: storeUnavailable })
      )
    })
})

/** The readiness answer as a response of the public port. */
export const readyResponse = (ready: Ready) => HttpServerResponse.jsonUnsafe(ready, { headers: NO_STORE })

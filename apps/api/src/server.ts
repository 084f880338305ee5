/**
 * The HTTP application: the contract's routes (@productdir/contract) answered by
 * the use cases (@productdir/usecases), the MCP endpoint, the docs page and the
 * fallback, wrapped in the failure answers and the body policy, served by
 * Node's HTTP server. Needs the stores, ApiConfig and the Lifecycle; the entry
 * point (main.ts) chooses them.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "@productdir/contract"
import { Admission, Agents, Directory, Publishing, VoterIdentity } from "@productdir/usecases"
import { Server } from "node:http"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import * as Callers from "@productdir/edge/callers/callers"
import * as KeyDirectories from "@productdir/edge/callers/keyDirectory"
import * as SignedAgents from "@productdir/edge/callers/signatures"
import { AgentsLive } from "@productdir/http/handlers/agents"
import { DirectoryLive } from "@productdir/http/handlers/directory"
import { EntitiesLive } from "@productdir/http/handlers/entities"
import { ProductsLive } from "@productdir/http/handlers/products"
import { VotesLive } from "@productdir/http/handlers/votes"
import { PublishersLive, PublishingLive } from "@productdir/http/handlers/publishers"
import { PublisherAuthenticationLive } from "@productdir/http/publisherAuthentication"
import * as DomainProofs from "@productdir/edge/publishers/domainProofs"
import * as AccessLog from "@productdir/http/accessLog"
import { AuthenticationLive } from "@productdir/http/authentication"
import { bodyPolicy } from "@productdir/edge/bodyPolicy"
import { queryEncoding } from "@productdir/http/queryEncoding"
import { answerClientError } from "@productdir/http/clientErrors"
import { compress } from "@productdir/edge/responses/compression"
import { Connections, watch as watchConnections } from "@productdir/http/connections"
import { constantReads } from "@productdir/http/constantReads"
import { DocsLive } from "@productdir/http/docsPage"
import { answerFailures } from "@productdir/http/failures"
import * as FairShare from "@productdir/edge/clients/fairShare"
import * as BatchSlots from "@productdir/mcp/batchSlots"
import { takeTurns } from "@productdir/edge/clients/fairShare"
import * as RequestListener from "@productdir/http/requestListener"
import { RequestValidationLive } from "@productdir/http/requestValidation"
import { CacheFirstReadsLive } from "@productdir/http/cacheFirstReads"
import * as ProductReads from "@productdir/read-cache/productReads"
import * as ReadCache from "@productdir/read-cache/ReadCache"
import * as RuntimeMetrics from "./observability/runtimeMetrics.ts"
import { makeMcpEdge } from "@productdir/mcp/edge"
import { McpLive } from "@productdir/mcp/server"
import { A2aLive } from "@productdir/a2a/routes"
import * as CardSigning from "@productdir/a2a/signing"
import * as McpSessions from "@productdir/mcp/sessions"
import * as HttpMetrics from "./observability/httpMetrics.ts"
import { SessionGaugesLive, ToolCallsCounted } from "./observability/mcpMetrics.ts"
import { makeMetricsResponse, MetricsListenerLive } from "./observability/scrape.ts"
import { StoreStatusLive } from "./storeStatus.ts"
import { PublisherChecksLive } from "./publisherChecks.ts"
import { loadVocabulary } from "./searchVocabulary.ts"
import { AgentCardRoute, MetricsRoute } from "@productdir/http/delegatedRoutes"
import { makeCardRoute } from "@productdir/a2a/cardRoute"
import { SpanNamesLive, TraceResponsesLive, tracingEnabled } from "./observability/tracing.ts"
import { countAdmissions, countVotes } from "./observability/voteMetrics.ts"

/** Two routes of the contract the HTTP door serves on others' behalf: the A2A door's card, the app's metrics. */
const DelegatedRoutesLive = Layer.mergeAll(
  Layer.effect(
    AgentCardRoute,
    Effect.map(makeCardRoute, (serve) => ({ serve }))
  ),
  Layer.effect(
    MetricsRoute,
    Effect.map(makeMetricsResponse, (serve) => ({ serve }))
  )
)

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([ProductsLive, EntitiesLive, VotesLive, AgentsLive, PublishersLive, PublishingLive, DirectoryLive]),
  Layer.provide([RequestValidationLive, AuthenticationLive, PublisherAuthenticationLive, DelegatedRoutesLive])
)

const serveConstantReads = constantReads()

/**
 * The use cases and the proof of who is calling, configured from ApiConfig. A signature is
 * checked against the origin clients reach this service at: PUBLIC_URL, else the Host the
 * request came to.
 */
const UseCasesLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const vocabulary = yield* loadVocabulary(config.searchVocabulary)
    const identity = VoterIdentity.layer(config.voterSecret)
    const agents = Agents.layer({ registrationsPerNetwork: config.registrationsPerNetwork }).pipe(Layer.provide(identity))
    const signed = SignedAgents.layer({
      origin: (headers) => Option.getOrElse(config.publicUrl, () => (headers.host === undefined ? undefined : `http://${headers.host}`))
    }).pipe(Layer.provide(KeyDirectories.layer({ httpHosts: config.signedAgentsHttpHosts })))
    // Its votes counted in the metrics by outcome (observability/voteMetrics.ts).
    const directory = countVotes(
      Directory.layer({
        votesPerVoter: config.votesPerVoter,
        votesPerClient: config.votesPerAddress,
        anonymousVotesPerNetwork: config.anonymousVotesPerNetwork,
        burstGuard: config.burstGuard,
        utm: config.utm,
        vocabulary
      })
    )
    // What a signed request pays before its proof is checked; refused there, it is a limited vote in the metrics.
    const admission = countAdmissions(
      Admission.layer({ votesPerClient: config.votesPerAddress, directoryFetchesPerNetwork: config.directoryFetchesPerNetwork })
    )
    // Claims and verifications draw on their own daily budgets, sized as registrations' are.
    const publishing = Publishing.layer({ attemptsPerNetwork: config.registrationsPerNetwork }).pipe(
      Layer.provide(identity),
      Layer.provide(
        DomainProofs.layer({
          testSites: new Map(
            config.publisherTestSites.map((entry) => [
              entry.slice(0, entry.indexOf("=")).toLowerCase(),
              entry.slice(entry.indexOf("=") + 1)
            ])
          ),
          dnsServers: config.publisherDnsServers
        })
      )
    )
    return Layer.mergeAll(Callers.layer.pipe(Layer.provide([agents, signed, identity, admission])), directory, agents, identity, publishing)
  })
)

/**
 * One Directory and one proof of identity under both transports: a voter's votes over HTTP
 * and over MCP are the same voter's, and draw on the same rate-limit buckets.
 */
export const AppRoutes = Layer.mergeAll(
  ApiRoutes,
  // Every tools/call counted, and the sessions' figures (observability/mcpMetrics.ts).
  Layer.mergeAll(ToolCallsCounted, SessionGaugesLive).pipe(Layer.provideMerge(McpLive)),
  A2aLive,
  // Traced, the cache's reads go through the application, where requests become spans (observability/tracing.ts).
  Layer.unwrap(Effect.map(tracingEnabled, (traced) => (traced ? Layer.empty : CacheFirstReadsLive))),
  DocsLive,
  TraceResponsesLive,
  // Verified publishers' proofs read again on a schedule (publisherChecks.ts).
  PublisherChecksLive,
  // With METRICS_PORT, /metrics on its own loopback listener (observability/scrape.ts).
  MetricsListenerLive,
  // Around every route, the docs and the fallback, outermost first: failures as problems,
  // compression of what is not prepared already, the prepared constant reads, the edge of /mcp,
  // the query's encoding, the body policy, then each request's turn of the process's work (packages/edge/src/clients/fairShare.ts). (Request ids, the access log and the connection policy are the front door's,
  // and the product reads the cache holds are answered there: CacheFirstReadsLive.)
  HttpRouter.middleware(
    Effect.zipWith(
      makeMcpEdge,
      takeTurns,
      (mcpEdge, inTurn) => (httpEffect) =>
        answerFailures(compress(serveConstantReads(mcpEdge(queryEncoding(bodyPolicy(inTurn(httpEffect)))))))
    ),
    { global: true }
  )
).pipe(
  Layer.provide(ReadCache.layer.pipe(Layer.provide(ProductReads.layer))),
  // What /healthz and /readyz may tell of the store (storeStatus.ts).
  Layer.provide(StoreStatusLive),
  // The event loop's delay and V8's pauses, for /metrics (observability/runtimeMetrics.ts).
  Layer.provide(RuntimeMetrics.layer),
  // One record of MCP sessions for the endpoint and its edge (subscriptions, notification streams).
  Layer.provide(McpSessions.layer),
  // The A2A card's signing key (packages/a2a/src/signing.ts): the card's handler and the JWK Set share it.
  Layer.provide(CardSigning.layer),
  Layer.provide(UseCasesLive),
  // One share of work for every door: HTTP, each message of MCP, A2A (and a key directory's fetch gives its turn back).
  Layer.provideMerge(FairShare.layer),
  // MCP batches answered at once: their answers are held until their last call (packages/mcp/src/batchSlots.ts).
  Layer.provideMerge(BatchSlots.layer)
)

/**
 * Node's HTTP server on HOST:PORT, with the limits a server facing the internet
 * needs: a deadline for headers and for the whole request (slow clients), a cap
 * on connections and a smaller one per client address (packages/http/src/connections.ts), problem+json
 * for the errors Node answers itself (malformed requests 400, headers too large 431,
 * timeouts 408). Its requests come through the front door (packages/http/src/requestListener.ts). On shutdown
 * open connections get up to SHUTDOWN_GRACE (packages/edge/src/lifecycle.ts).
 */
export const NodeServerLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const millis = (d: Duration.Duration) => Duration.toMillis(d)
    const server = new Server({
      headersTimeout: Math.min(millis(config.headersTimeout), millis(config.requestTimeout) || Infinity),
      requestTimeout: millis(config.requestTimeout),
      keepAliveTimeout: millis(config.keepAliveTimeout),
      // How often Node looks for requests past their deadline: 30 s by default, far coarser than the deadlines.
      connectionsCheckingInterval: 1_000,
      // The front door refuses an HTTP/1.1 request without Host with a problem; Node's own refusal is an empty 400.
      requireHostHeader: false
    })
    if (config.maxConnections > 0) server.maxConnections = config.maxConnections
    // A client may close its sending side once its request is written (HTTP/1.1 allows it; `nc -N`, some
    // proxies and one-shot scripts do). Node's server would abort the request at that FIN and write nothing,
    // so a registration or a vote could be done without its client ever hearing of it. With this (a field
    // of http.Server since Node's first releases, read where the socket ends), the request runs and its
    // answer is written, then the connection is closed.
    Object.assign(server, { httpAllowHalfOpen: true })
    server.on("clientError", answerClientError)
    return Layer.mergeAll(RequestListener.layer(server, { port: config.port, host: config.host }), NodeHttpServer.layerHttpServices).pipe(
      Layer.provideMerge(
        Layer.succeed(Connections, watchConnections(server, { perAddress: config.maxConnectionsPerAddress, max: config.maxConnections }))
      ),
      // Each access-log entry also counted in the request metrics (observability/httpMetrics.ts).
      Layer.provide(HttpMetrics.layerAccessLog.pipe(Layer.provide(AccessLog.layer)))
    )
  })
)

/** The served application; the request logger is ours (one structured line per request). Traced, spans are named by route. */
export const HttpLive = HttpRouter.serve(AppRoutes, { disableLogger: true, disableListenLog: true }).pipe(Layer.provide(SpanNamesLive))

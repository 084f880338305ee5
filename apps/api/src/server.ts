/**
 * The HTTP application: the API's routes, the docs page and the fallback,
 * wrapped in request logging and the body limit, served by Node's HTTP server.
 * Needs the stores and ApiConfig; the entry point (main.ts) chooses them.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiMiddleware, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import { Api } from "./Api.ts"
import { ApiConfig } from "./ApiConfig.ts"
import * as Directory from "./Directory.ts"
import { DirectoryLive } from "./handlers/directory.ts"
import { EntitiesLive } from "./handlers/entities.ts"
import { ProductsLive } from "./handlers/products.ts"
import { VotesLive } from "./handlers/votes.ts"
import { BodyLimit } from "./http/bodyLimit.ts"
import { RequestLog } from "./http/requestLog.ts"
import { McpLive } from "./mcp/server.ts"
import * as RateLimiter from "./RateLimiter.ts"
import * as VoterIdentity from "./VoterIdentity.ts"

const ApiRoutes = HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([ProductsLive, EntitiesLive, VotesLive, DirectoryLive]),
  Layer.provide(HttpApiMiddleware.layerProblemDetails({ includeDetails: true }))
)

/**
 * One Directory (and so one rate limiter) under both transports: a voter's votes over HTTP
 * and over MCP draw on the same buckets.
 */
export const AppRoutes = Layer.mergeAll(
  ApiRoutes,
  McpLive,
  HttpApiScalar.layer(Api, { path: "/docs" }),
  RequestLog,
  BodyLimit
).pipe(
  Layer.provide(Directory.layer),
  Layer.provide([RateLimiter.layer, VoterIdentity.layer])
)

/** Node's HTTP server on HOST:PORT, draining in-flight requests for SHUTDOWN_GRACE on shutdown. */
export const NodeServerLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ApiConfig
  return NodeHttpServer.layer(createServer, {
    port: config.port,
    host: config.host,
    gracefulShutdownTimeout: config.shutdownGrace
  })
}))

/** The served application; the request logger is ours (one structured line per request). */
export const HttpLive = HttpRouter.serve(AppRoutes, { disableLogger: true, disableListenLog: true })

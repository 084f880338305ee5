/**
 * Requests no route takes: a 404, or a 405 with `Allow` when the path exists
 * under another method. Paths come from the API definition.
 */
import type { HttpServerRequest } from "effect/http"
import { servedPaths } from "../catalogGuide.ts"
import { problem } from "./problemResponses.ts"

const toPattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/}]+\}/g, "[^/]+")}/?$`)

const routes = servedPaths().map((entry) => ({ ...entry, pattern: toPattern(entry.path) }))

export const unrouted = (request: HttpServerRequest.HttpServerRequest) => {
  const path = request.url.split("?")[0] ?? "/"
  const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))]
  if (allowed.length > 0) {
    return problem(405, `${request.method} is not allowed on ${path}; use ${allowed.join(" or ")}.`, {
      allow: allowed.join(", ")
    })
  }
  return problem(404, `Nothing is served at ${path}. GET / lists every path.`)
}

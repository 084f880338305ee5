/**
 * Who may read an operator's figures on the public port: the metrics (METRICS_TOKEN, METRICS_PORT) and the
 * database servers /readyz reaches. The app serves the metrics (apps/api/src/observability/scrape.ts); the HTTP
 * door answers /readyz; both ask here.
 */
import { timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import { Option, Redacted } from "effect"

/** The challenge a refused request for the metrics is answered with. */
export const CHALLENGE = { "www-authenticate": 'Bearer realm="metrics"' }

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Why a request may not read the metrics under METRICS_TOKEN; undefined when it may. */
export const refusalOf = (
  token: Option.Option<Redacted.Redacted>,
  headers: IncomingHttpHeaders | Readonly<Record<string, string | undefined>>
) => {
  if (Option.isNone(token)) return undefined
  const authorization = headers.authorization
  if (typeof authorization !== "string" || authorization.length === 0)
    return "The metrics are closed: send Authorization: Bearer <METRICS_TOKEN>."
  const match = /^Bearer\s+(\S+)\s*$/iu.exec(authorization)
  if (match === null) return "The metrics take a Bearer token: Authorization: Bearer <METRICS_TOKEN>."
  return sameSecret(match[1]!, Redacted.value(token.value)) ? undefined : "That token does not open the metrics."
}

/**
 * Whether a request on the public port may read an operator's figures (the metrics, the servers /readyz
 * reaches): the metrics are served there (no METRICS_PORT) and open to it (no METRICS_TOKEN, or its token).
 */
export const mayReadFigures = (
  config: { readonly metricsPort: Option.Option<number>; readonly metricsToken: Option.Option<Redacted.Redacted> },
  headers: Readonly<Record<string, string | undefined>>
) => Option.isNone(config.metricsPort) && refusalOf(config.metricsToken, headers) === undefined

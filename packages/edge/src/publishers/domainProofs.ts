/**
 * Reading a publisher's proof (DomainProofs): the domain is the client's to name, so it is fetched as if the client
 * were hostile, as key directories are (../callers/keyDirectory.ts): HTTPS only, never to a private or loopback
 * address (checked after resolution, so a name that rebinds to one is refused), no redirects, one deadline for the
 * whole fetch (connect, headers and body), a body of at most 4 KiB. Tests name loopback sites for their domains
 * (PUBLISHER_TEST_SITES, `domain=127.0.0.1:port`): those, and only those, are fetched over plain HTTP at that address.
 * DNS is asked of the system's resolvers, or of PUBLISHER_DNS_SERVERS: then the site's name is resolved there too, and
 * its addresses checked the same way.
 */
import { Duration, Effect, Layer } from "effect"
import { promises as dns } from "node:dns"
import { get as httpGet, type IncomingMessage } from "node:http"
import { get as httpsGet } from "node:https"
import type { LookupFunction } from "node:net"
import { CHALLENGE_PATH, challengeRecord, DomainProofs, ProofUnreadable } from "@productdir/domain"
import { answerPublic, publicOnlyLookup } from "../callers/keyDirectory.ts"

const DEADLINE = Duration.seconds(5)
const MAX_BYTES = 4 * 1024
const USER_AGENT = "productdir-publisher-check/1 (+https://github.com/productdir)"

export interface DomainProofsOptions {
  /** domain → `host:port` of a loopback site that stands for it (tests). */
  readonly testSites: ReadonlyMap<string, string>
  /** `host` or `host:port` of DNS servers to ask instead of the system's. */
  readonly dnsServers: ReadonlyArray<string>
}

/** Resolution through `resolver` that refuses to connect to a private address, as publicOnlyLookup does. */
const publicLookupVia =
  (resolver: dns.Resolver): LookupFunction =>
  (hostname, options, callback) => {
    void Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]).then(([v4, v6]) =>
      answerPublic(
        hostname,
        [
          ...(v4.status === "fulfilled" ? v4.value.map((address) => ({ address, family: 4 })) : []),
          ...(v6.status === "fulfilled" ? v6.value.map((address) => ({ address, family: 6 })) : [])
        ],
        options.all,
        callback
      )
    )
  }

const fetchToken = (domain: string, site: string | undefined, lookup: LookupFunction) =>
  Effect.callback<string, ProofUnreadable>((resume, signal) => {
    const where = `https://${domain}${CHALLENGE_PATH}`
    const fail = (reason: string) => resume(Effect.fail(new ProofUnreadable({ where, reason })))
    const onResponse = (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.resume()
        return fail(
          response.statusCode !== undefined && response.statusCode >= 300 && response.statusCode < 400
            ? `it redirects (${response.statusCode}); a proof is served at this URL itself`
            : `it answered ${response.statusCode}`
        )
      }
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_BYTES) {
          response.destroy()
          fail(`its body is larger than ${MAX_BYTES / 1024} KiB; a proof is the token alone`)
        } else chunks.push(chunk)
      })
      response.on("error", (error) => fail(error.message))
      response.on("end", () => {
        if (size <= MAX_BYTES) resume(Effect.succeed(Buffer.concat(chunks).toString("utf8").trim()))
      })
    }
    const headers = { accept: "text/plain", "user-agent": USER_AGENT, host: domain }
    const request =
      site === undefined
        ? httpsGet({ host: domain, path: CHALLENGE_PATH, signal, headers, lookup }, onResponse)
        : httpGet(
            {
              host: site.slice(0, site.lastIndexOf(":")),
              port: Number(site.slice(site.lastIndexOf(":") + 1)),
              path: CHALLENGE_PATH,
              signal,
              headers
            },
            onResponse
          )
    request.on("error", (error) => fail(error.message))
  }).pipe(
    // Interrupting the callback aborts its signal: the request and its socket are destroyed.
    Effect.timeoutOrElse({
      duration: DEADLINE,
      orElse: () =>
        Effect.fail(
          new ProofUnreadable({
            where: `https://${domain}${CHALLENGE_PATH}`,
            reason: `it did not answer in full within ${Duration.toSeconds(DEADLINE)} s`
          })
        )
    })
  )

export const layer = (options: DomainProofsOptions) =>
  Layer.sync(DomainProofs, () => {
    const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 })
    if (options.dnsServers.length > 0) resolver.setServers([...options.dnsServers])
    const lookup = options.dnsServers.length > 0 ? publicLookupVia(resolver) : publicOnlyLookup
    return DomainProofs.of({
      httpToken: (domain) => fetchToken(domain, options.testSites.get(domain), lookup),
      dnsTexts: (domain) =>
        Effect.tryPromise({
          try: () => resolver.resolveTxt(challengeRecord(domain)),
          catch: (error) =>
            new ProofUnreadable({
              where: `the TXT records of ${challengeRecord(domain)}`,
              reason:
                (error as NodeJS.ErrnoException).code === "ENOTFOUND" || (error as NodeJS.ErrnoException).code === "ENODATA"
                  ? "there are none"
                  : String((error as Error).message)
            })
        }).pipe(Effect.map((records) => records.map((chunks) => chunks.join(""))))
    })
  })

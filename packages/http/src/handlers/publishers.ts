/**
 * /publishers: a claim of a domain and its proof; PATCH /products/{id}: a publisher's change of its product's record,
 * made only against the representation it names in `If-Match` (the record's ETag, or its current version's, which
 * votes do not change).
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import {
  Api,
  BadRequest,
  Conflict,
  Forbidden,
  NotFound,
  PreconditionFailed,
  PreconditionRequired,
  PublisherCaller,
  ServiceUnavailable,
  UnprocessableContent
} from "@productdir/contract"
import {
  formatOffsetTimestamp,
  type Product,
  productPath,
  publisherVerifyPath,
  toProductRecord,
  toProductVersion,
  toPublisherView
} from "@productdir/domain"
import { Directory, Publishing } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { etagOf, tagFor } from "@productdir/edge/responses/preparedResponse"
import { readProblems, storeUnavailable } from "../domainProblems.ts"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { clientAddress, isLocalClient } from "@productdir/edge/clients/clientAddress"
import { tooManyRequests } from "@productdir/edge/problems/rateLimits"

const encoder = new TextEncoder()
const tagOf = (body: unknown) => etagOf(encoder.encode(JSON.stringify(body)))

const unavailable = () => Effect.fail(new ServiceUnavailable({ detail: "The directory's store is unavailable right now. Retry shortly." }))

/** A claim or a verification over its network's budget: 429 with Retry-After, as a registration's. */
const limited = (error: Publishing.PublishingLimited) => {
  const { limit, windowSeconds, retryAfterSeconds, resetSeconds, key } = error
  return Effect.succeed(
    tooManyRequests("Publisher claims and verifications", {
      _tag: "Limited",
      limit,
      windowSeconds,
      retryAfterSeconds,
      resetSeconds,
      key
    })
  )
}

export const PublishersLive = HttpApiBuilder.group(Api, "publishers", (handlers) =>
  Effect.gen(function* () {
    const publishing = yield* Publishing.Publishing
    const config = yield* ApiConfig
    const claimant = Effect.map(HttpServerRequest.HttpServerRequest, (request) => ({
      address: clientAddress(request, config.trustProxy),
      local: isLocalClient(request, config.trustProxy)
    }))
    return handlers
      .handle("claimDomain", ({ payload }) =>
        Effect.flatMap(claimant, (who) => publishing.claim(payload.domain, publisherVerifyPath, who)).pipe(
          Effect.map((challenge) => HttpServerResponse.jsonUnsafe(challenge, { status: 201, headers: { "cache-control": "no-store" } })),
          Effect.catchTags({
            DomainRefused: (error) =>
              Effect.fail(new BadRequest({ detail: error.message, errors: [{ path: ["payload", "domain"], message: error.issue }] })),
            DomainTaken: (error) => Effect.fail(new Conflict({ detail: error.message })),
            PublishingLimited: limited,
            StoreError: unavailable
          })
        )
      )
      .handle("getPublisher", ({ params }) =>
        publishing.find(params.publisher_id).pipe(
          // A publisher's status is public: cached briefly, as every read is, with its validator.
          Effect.flatMap((publisher) => cachedJson(toPublisherView(publisher))),
          Effect.catchTags({
            PublisherNotFound: (error) => Effect.fail(new NotFound({ detail: `${error.message}: claim a domain with POST /publishers.` })),
            StoreError: unavailable
          })
        )
      )
      .handle("verifyDomain", ({ params }) =>
        Effect.flatMap(claimant, (who) => publishing.verify(params.publisher_id, who)).pipe(
          // The key is a secret: no cache may keep the response.
          Effect.map((credentials) => HttpServerResponse.jsonUnsafe(credentials, { headers: { "cache-control": "no-store" } })),
          Effect.catchTags({
            PublisherNotFound: (error) =>
              Effect.fail(new NotFound({ detail: `${error.message}: claim the domain with POST /publishers.` })),
            AlreadyVerified: (error) => Effect.fail(new Conflict({ detail: error.message })),
            DomainTaken: (error) => Effect.fail(new Conflict({ detail: error.message })),
            ProofMissing: (error) =>
              Effect.fail(
                new UnprocessableContent({
                  detail: `${error.message}. Serve the token ${error.token} as the whole body of https://${error.domain}/.well-known/productdir-challenge, or as a TXT record of _productdir.${error.domain}, then verify again.`
                })
              ),
            PublishingLimited: limited,
            StoreError: unavailable
          })
        )
      )
  })
)

/**
 * The tags a change may name: the record's as GET /products/{id} serves it, and its current version's, in every coding
 * they are sent in (a client that took gzip holds the gzip tag).
 */
const currentTags = (product: Product, utm: Parameters<typeof toProductRecord>[1]): ReadonlySet<string> =>
  new Set(
    [
      tagOf(toProductRecord(product, utm)),
      tagOf(
        toProductVersion(
          product,
          { version: product.version, content: product.content, updatedAt: product.updatedAt, supersededAt: null },
          utm
        )
      )
    ].flatMap((tag) => [tag, tagFor(tag, "gzip"), tagFor(tag, "br")])
  )

/** RFC 9110's If-Match: `*`, or a strong comparison (a weak tag never matches). */
const matches = (header: string, tags: ReadonlySet<string>) =>
  header.split(",").some((candidate) => {
    const tag = candidate.trim()
    return tag === "*" || tags.has(tag)
  })

export const PublishingLive = HttpApiBuilder.group(Api, "publishing", (handlers) =>
  Effect.gen(function* () {
    const publishing = yield* Publishing.Publishing
    const directory = yield* Directory.Directory
    const config = yield* ApiConfig
    const refusedChange = (error: Publishing.ChangeRefused) =>
      Effect.fail(
        new BadRequest({
          detail: `${error.errors.length === 1 ? "1 field is" : `${error.errors.length} fields are`} not right: ${error.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`,
          errors: error.errors.map((e) => ({ path: ["payload", ...e.path.split(/[.[\]]+/u).filter((p) => p !== "")], message: e.message }))
        })
      )
    return handlers
      .handle("createProduct", ({ payload }) =>
        Effect.gen(function* () {
          const product = yield* publishing.create(yield* PublisherCaller, payload)
          const record = toProductRecord(product, config.utm)
          return HttpServerResponse.jsonUnsafe(record, {
            status: 201,
            headers: { location: productPath(product.id), etag: tagOf(record), "cache-control": "no-store" }
          })
        }).pipe(Effect.catchTags({ StoreError: storeUnavailable, ChangeRefused: refusedChange }))
      )
      .handle("replyToProblem", ({ params, payload }) =>
        Effect.gen(function* () {
          const product = yield* directory.product(params.slug)
          const problem = yield* publishing.reply(yield* PublisherCaller, product, params.problem_id, {
            text: payload.text,
            fixedInVersion: payload.fixed_in_version
          })
          return HttpServerResponse.jsonUnsafe(problem, { status: 201, headers: { "cache-control": "no-store" } })
        }).pipe(
          Effect.catchTags({
            ...readProblems,
            NotTheirs: (error) => Effect.fail(new Forbidden({ detail: error.message })),
            ProblemNotFound: (error) =>
              Effect.fail(new NotFound({ detail: `${error.message}: the problems read lists each problem's id.` })),
            ChangeRefused: refusedChange
          })
        )
      )
      .handle("changeProduct", ({ params, payload }) =>
        Effect.gen(function* () {
          const publisher = yield* PublisherCaller
          const request = yield* HttpServerRequest.HttpServerRequest
          const product = yield* directory.product(params.id)
          yield* publishing.owned(publisher, product)
          const ifMatch = request.headers["if-match"]
          if (ifMatch === undefined) {
            return yield* new PreconditionRequired({
              detail:
                "Send If-Match with the ETag of GET /products/{id} (or of its current version): a change is made against what was read."
            })
          }
          if (!matches(ifMatch, currentTags(product, config.utm))) {
            return yield* new PreconditionFailed({
              detail: `The record changed since it was read (it is at version ${product.version}): read it again and send the change with its ETag.`
            })
          }
          const changed = yield* publishing.edit(publisher, product, payload, product.version)
          const record = toProductRecord(changed, config.utm)
          return HttpServerResponse.jsonUnsafe(record, {
            headers: {
              etag: tagOf(record),
              "cache-control": "no-store",
              "last-modified": new Date(formatOffsetTimestamp(changed.updatedAt)).toUTCString()
            }
          })
        }).pipe(
          Effect.catchTags({
            ...readProblems,
            NotTheirs: (error) => Effect.fail(new Forbidden({ detail: error.message })),
            ChangeRefused: refusedChange,
            VersionConflict: (error) =>
              Effect.fail(new PreconditionFailed({ detail: `${error.message}: read it again and send the change with its ETag.` })),
            StoreError: storeUnavailable
          })
        )
      )
  })
)

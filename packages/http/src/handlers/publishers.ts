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
import { formatOffsetTimestamp, type Product, publisherVerifyPath, toProductRecord, toProductVersion } from "@productdir/domain"
import { Directory, Publishing } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { etagOf, tagFor } from "@productdir/edge/responses/preparedResponse"
import { readProblems, storeUnavailable } from "../domainProblems.ts"

const encoder = new TextEncoder()
const tagOf = (body: unknown) => etagOf(encoder.encode(JSON.stringify(body)))

const unavailable = () => Effect.fail(new ServiceUnavailable({ detail: "The directory's store is unavailable right now. Retry shortly." }))

export const PublishersLive = HttpApiBuilder.group(Api, "publishers", (handlers) =>
  Effect.gen(function* () {
    const publishing = yield* Publishing.Publishing
    return handlers
      .handle("claimDomain", ({ payload }) =>
        publishing.claim(payload.domain, publisherVerifyPath).pipe(
          Effect.map((challenge) => HttpServerResponse.jsonUnsafe(challenge, { status: 201, headers: { "cache-control": "no-store" } })),
          Effect.catchTags({
            DomainRefused: (error) =>
              Effect.fail(new BadRequest({ detail: error.message, errors: [{ path: ["payload", "domain"], message: error.issue }] })),
            DomainTaken: (error) => Effect.fail(new Conflict({ detail: error.message })),
            StoreError: unavailable
          })
        )
      )
      .handle("verifyDomain", ({ params }) =>
        publishing.verify(params.publisher_id).pipe(
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
    return handlers.handle("changeProduct", ({ params, payload }) =>
      Effect.gen(function* () {
        const publisher = yield* PublisherCaller
        const request = yield* HttpServerRequest.HttpServerRequest
        const product = yield* directory.product(params.id)
        yield* publishing.owned(publisher, product)
        const ifMatch = request.headers["if-match"]
        if (ifMatch === undefined) {
          return yield* new PreconditionRequired({
            detail: "Send If-Match with the ETag of GET /products/{id} (or of its current version): a change is made against what was read."
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
          ChangeRefused: (error) =>
            Effect.fail(
              new BadRequest({
                detail: `${error.errors.length === 1 ? "1 field is" : `${error.errors.length} fields are`} not right: ${error.errors.map((e) => `${e.path} ${e.message}`).join("; ")}`,
                errors: error.errors.map((e) => ({
                  path: ["payload", ...e.path.split(/[.[\]]+/u).filter((p) => p !== "")],
                  message: e.message
                }))
              })
            ),
          VersionConflict: (error) =>
            Effect.fail(new PreconditionFailed({ detail: `${error.message}: read it again and send the change with its ETag.` })),
          StoreError: storeUnavailable
        })
      )
    )
  })
)

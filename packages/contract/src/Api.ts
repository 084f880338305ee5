/**
 * The HTTP API definition: every path, its inputs, outputs and errors. Shared by
 * the server, the OpenAPI document, the docs page and the typed client
 * (@productdir/client); it holds no server code.
 */
import { CATEGORY_LABEL, SEARCH_RESULTS, SEARCH_WORDS } from "./descriptions.ts"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AgentCard,
  AgentCredentials,
  AgentRegistration,
  AgentView,
  boundedText,
  CategoryList,
  ListSort,
  Problem,
  ProblemList,
  ProblemReply,
  ProductPage,
  ProductRecord,
  ProductRef,
  ProductVersion,
  PublisherChallenge,
  PublisherClaim,
  PublisherCredentials,
  PublisherId,
  PublisherView,
  NewProduct,
  RecordChange,
  ROUTES,
  VersionList,
  VoteOutcome,
  VoteRequest
} from "@productdir/domain"
import { Authentication } from "./Authentication.ts"
import { PublisherAuthentication } from "./PublisherAuthentication.ts"
import { completeDocument } from "./openapi.ts"
import { Cursor, LimitQuery, SinceQuery, VersionNumberText } from "./params.ts"
import {
  BadRequest,
  Conflict,
  Forbidden,
  Gone,
  NotFound,
  PayloadTooLarge,
  PreconditionFailed,
  PreconditionRequired,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  UnprocessableContent,
  UnsupportedMediaType
} from "./problems.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { ServedDirectoryCard } from "./DirectoryCard.ts"
import { ServiceIndex } from "./ServiceIndex.ts"
import { VERSION } from "./version.ts"

const IdParam = Schema.String.check(
  Schema.isUUID(undefined, {
    message: "must be a product id (a UUID); to read a product by its slug, use GET /entities/{slug}?format=agent"
  })
).annotate({ description: "Product id (UUID)", examples: ["0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a"] })
const SlugParam = ProductRef.annotate({ description: "Product slug, or its UUID", examples: ["acme-analytics"] })
const ReadErrors = [BadRequest, NotFound, Gone, ServiceUnavailable]

const describe = (summary: string, description: string) => OpenApi.annotations({ summary, description })

export class ProductsApi extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("getProduct", ROUTES.product, {
      params: { id: IdParam },
      success: ProductRecord,
      error: ReadErrors
    }).annotateMerge(
      describe(
        "The product detail record (compatibility read)",
        "Exactly the fields of the interface spec, for clients that read the full record. Agents: prefer `/entities/{slug}?format=agent`. A product removed from the catalog answers 410."
      )
    ),
    HttpApiEndpoint.get("getAgentCard", ROUTES.agentCard, {
      params: { id: IdParam },
      success: AgentCard,
      error: ReadErrors
    }).annotateMerge(
      describe(
        "A compact card for tool-using agents",
        "Who the product is, what it does, when to avoid it, what it costs and how trusted it is, with every link and a vote template that succeeds as sent."
      )
    ),
    HttpApiEndpoint.get("listVersions", ROUTES.productVersions, {
      params: { id: IdParam },
      query: {
        before: Schema.optionalKey(VersionNumberText).annotate({
          description: "Only versions older than this one (the `next` link sets it)"
        }),
        limit: Schema.optionalKey(LimitQuery)
      },
      success: VersionList,
      error: ReadErrors
    }).annotateMerge(
      describe(
        "A product's versions",
        "Every change of a product's content makes a new version (+1) and keeps the one it replaced: newest first, with when each was current. Versions replaced before the directory kept them are not listed."
      )
    ),
    HttpApiEndpoint.get("getVersion", ROUTES.productVersion, {
      params: { id: IdParam, version: VersionNumberText },
      success: ProductVersion,
      error: ReadErrors
    }).annotateMerge(
      describe(
        "One version of a product's record",
        "The record's content fields exactly as the detail record served them while this version was current. Trust is not versioned (votes make no version): read it at `/products/{id}`."
      )
    ),
    HttpApiEndpoint.get("listProducts", ROUTES.products, {
      query: {
        q: Schema.optionalKey(boundedText(200)).annotate({
          description: SEARCH_WORDS,
          examples: ["invoicing for freelancers"]
        }),
        category: Schema.optionalKey(boundedText(200)).annotate({
          description: CATEGORY_LABEL,
          examples: ["Accounting"]
        }),
        sort: Schema.optionalKey(ListSort),
        updated_since: Schema.optionalKey(SinceQuery),
        limit: Schema.optionalKey(LimitQuery),
        cursor: Schema.optionalKey(Cursor)
      },
      success: ProductPage,
      error: [BadRequest, ServiceUnavailable]
    }).annotateMerge(describe("Search and list products", SEARCH_RESULTS))
  )
  .middleware(RequestValidation)
  .annotateMerge(OpenApi.annotations({ title: "Products", description: "The detail record, the agent card, and search" })) {}

export class EntitiesApi extends HttpApiGroup.make("entities")
  .add(
    HttpApiEndpoint.get("getEntity", ROUTES.entity, {
      params: { slug: SlugParam },
      query: {
        format: Schema.optionalKey(Schema.Literals(["json", "agent"]).annotate({ message: 'must be "json" or "agent"' })).annotate({
          description: "`agent`: the decision view; `json` or absent: the detail record"
        })
      },
      success: [AgentView, ProductRecord],
      error: ReadErrors
    }).annotateMerge(
      describe(
        "The agent decision view, or the detail record",
        "With `format=agent`: everything an agent weighs before choosing the product (capabilities, use cases, when to avoid it, pricing plans, trust, the top known problems) and a vote template. Without it: the detail record. `{slug}` also takes the id."
      )
    ),
    HttpApiEndpoint.get("getProblems", ROUTES.problems, {
      params: { slug: SlugParam },
      query: { limit: Schema.optionalKey(LimitQuery), cursor: Schema.optionalKey(Cursor) },
      success: ProblemList,
      error: ReadErrors
    }).annotateMerge(
      describe(
        "Known problems of a product",
        "Limitations the catalog lists and problems other agents reported with down votes, most reported first, in pages."
      )
    )
  )
  .middleware(RequestValidation)
  .annotateMerge(OpenApi.annotations({ title: "Agent reads", description: "What an agent reads to judge a product" })) {}

export class VotesApi extends HttpApiGroup.make("votes")
  .add(
    HttpApiEndpoint.post("vote", ROUTES.vote, {
      payload: VoteRequest,
      success: [VoteOutcome.pipe(HttpApiSchema.status(201)), VoteOutcome],
      error: [BadRequest, Unauthorized, NotFound, Gone, PayloadTooLarge, UnsupportedMediaType, TooManyRequests, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Vote for (up) or against (down) a product",
        "One live vote per product and voter: 201 `recorded` for a new vote, 200 `unchanged` or `changed`. The voter is the agent of the request's API key (`Authorization: Bearer`, from POST /agents) or of its HTTP message signature (Web Bot Auth); without either, the client's address. `counted_as` in the response says which. A bad, unknown or revoked key, or a signature that does not verify, is a 401. `voter_id` is accepted and ignored: a stated name is not an identity. A down vote with a `reason` reports a problem (one per vote: a new reason replaces the voter's earlier one), which counts as the vote does (not while it is held, not once it is discounted). The body must be JSON (`Content-Type: application/json`) of at most 16 KiB, uncompressed. Rate limited per voter and per client address, and, without a proven identity, per product at each level of the client's networks (429 with Retry-After). `counting` says how the vote counts: `counted` at once; `held` until the integrity pass, during a burst of votes on the product when the voter has no standing yet; `discounted` as part of a coordinated group: voters in lockstep across products, or addresses that vote one product and nothing else in numbers its agents and its other visitors do not back (an operator can clear it). The agent view's `trust_formation` says how the counters were formed."
      )
    )
  )
  .middleware(RequestValidation)
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Votes", description: "The community's trust signal" })) {}

export class AgentsApi extends HttpApiGroup.make("agents")
  .add(
    HttpApiEndpoint.post("registerAgent", ROUTES.agents, {
      payload: AgentRegistration,
      success: AgentCredentials.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, PayloadTooLarge, UnsupportedMediaType, TooManyRequests, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Register an agent and get its API key",
        "Returns the agent's id and its API key, shown once (only a hash is kept). Send the key as `Authorization: Bearer <api_key>` on POST /vote and /mcp: your votes then count for your agent, one live vote per product, wherever you vote from. Limited per client address and day (429 with Retry-After). An operator can revoke an agent: its votes then stop counting."
      )
    )
  )
  .middleware(RequestValidation)
  .annotateMerge(OpenApi.annotations({ title: "Agents", description: "Voting as an agent: register once, then vote with the key" })) {}

export class PublishersApi extends HttpApiGroup.make("publishers")
  .add(
    HttpApiEndpoint.post("claimDomain", ROUTES.publishers, {
      payload: PublisherClaim,
      success: PublisherChallenge.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Conflict, PayloadTooLarge, UnsupportedMediaType, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Claim a domain, to publish its products",
        "Answers a challenge: serve its `token` as the whole body of `https://<domain>/.well-known/productdir-challenge`, or as a TXT record `_productdir.<domain>`, then POST to `verify_endpoint`. The registrable domain of what is sent is claimed (`shop.acme.co.uk` claims `acme.co.uk`). A domain that has a verified publisher is a 409."
      )
    ),
    HttpApiEndpoint.get("getPublisher", ROUTES.publisher, {
      params: { publisher_id: PublisherId },
      success: PublisherView,
      error: [BadRequest, NotFound, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "A claim or a publisher",
        "Its status (`pending`, `verified`, `suspended`), how it was proven, and its proof's checks: a verified publisher's proof is read again on a schedule, and three checks in a row that do not find it suspend the publisher (its key stops working; its products' records stay), saying why in `note`."
      )
    ),
    HttpApiEndpoint.post("verifyDomain", ROUTES.publisherVerify, {
      params: { publisher_id: PublisherId },
      success: PublisherCredentials,
      error: [BadRequest, NotFound, Conflict, UnprocessableContent, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Prove a claim and get the publisher's key",
        "Reads the challenge from the domain's site (HTTPS, no redirects, no private addresses) and, failing that, its DNS. Proven: the publisher's key, shown once. Not proven: 422, saying what each place answered."
      )
    )
  )
  .middleware(RequestValidation)
  .annotateMerge(OpenApi.annotations({ title: "Publishers", description: "Vendors vouch for their products' records" })) {}

export class PublishingApi extends HttpApiGroup.make("publishing")
  .add(
    HttpApiEndpoint.post("createProduct", ROUTES.products, {
      payload: NewProduct,
      success: ProductRecord.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Unauthorized, PayloadTooLarge, UnsupportedMediaType, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Add a product, as its publisher",
        "With the publisher's key, a product whose website is on the publisher's domain: the whole record's content fields, checked as an import checks a record (a name that imitates another product's is refused). The directory gives it its id and slug; the answer is the new record, its path in `Location`."
      )
    ),
    HttpApiEndpoint.post("replyToProblem", ROUTES.problemReplies, {
      params: { slug: SlugParam, problem_id: boundedText(100).annotate({ description: "A problem's `id`, from the problems read" }) },
      payload: ProblemReply,
      success: Problem.pipe(HttpApiSchema.status(201)),
      error: [BadRequest, Unauthorized, Forbidden, NotFound, Gone, PayloadTooLarge, UnsupportedMediaType, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Reply to a problem, as the product's publisher",
        "With the publisher's key, on a problem of a product whose website is on the publisher's domain: the reply is shown beside the reports as the vendor's (`reply`, `source: publisher`), and may say which version of the record fixes it. A later reply replaces the earlier one. The answer is the problem as it reads now."
      )
    ),
    HttpApiEndpoint.patch("changeProduct", ROUTES.product, {
      params: { id: IdParam },
      payload: RecordChange,
      success: ProductRecord,
      error: [
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        Gone,
        PreconditionFailed,
        PreconditionRequired,
        PayloadTooLarge,
        UnsupportedMediaType,
        ServiceUnavailable
      ]
    }).annotateMerge(
      describe(
        "Change a product's record, as its publisher",
        "With the publisher's key (`Authorization: Bearer`), on a product whose website is on the publisher's domain. Send `If-Match` with the `ETag` of `GET /products/{id}` (or of its current version, `GET /products/{id}/versions/{n}`, which votes do not change): a stale one is a 412, none a 428. Each field sent replaces the record's; the record is checked as an import checks one. A change makes a new version (+1) and keeps the one it replaced; the answer is the record as it is now."
      )
    )
  )
  .middleware(RequestValidation)
  .middleware(PublisherAuthentication)
  .annotateMerge(OpenApi.annotations({ title: "Publishing", description: "A publisher changes its products' records" })) {}

export class DirectoryApi extends HttpApiGroup.make("directory")
  .add(
    HttpApiEndpoint.get("listCategories", ROUTES.categories, { success: CategoryList, error: ServiceUnavailable }).annotateMerge(
      describe("Categories with product counts", "Every category of the catalog, with its number of products and the link that lists them.")
    ),
    HttpApiEndpoint.get("index", ROUTES.index, { success: ServiceIndex, error: ServiceUnavailable }).annotateMerge(
      describe("What this service is", "The service's name and version, where agents start, and every path it serves.")
    ),
    HttpApiEndpoint.get("agentCard", ROUTES.directoryCard, { success: ServedDirectoryCard, error: ServiceUnavailable }).annotateMerge(
      describe(
        "This directory's A2A Agent Card",
        "Who this service is for agents that discover services by their card: its HTTP and MCP interfaces (absolute URLs) and its skills: search, read a product, read its problems, vote. With the header A2A-Version: 1.0 the A2A 1.0 card; without it (A2A 0.3, as A2A 1.0 reads a request without the header) the card as A2A 0.3 clients read it."
      )
    ),
    HttpApiEndpoint.get("llms", ROUTES.llms, {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/markdown" })),
      error: ServiceUnavailable
    }).annotateMerge(
      describe("How an agent should use this service", "The llms.txt guide: how to find, judge and vote, over HTTP and MCP.")
    ),
    HttpApiEndpoint.get("healthz", ROUTES.healthz, {
      success: Schema.Struct({ status: Schema.Literal("ok") }),
      error: ServiceUnavailable
    }).annotateMerge(
      describe(
        "The process is up",
        "Liveness: 200 while the process runs; 503 when its embedded database has stopped answering (one statement for over 30 s), which only a restart brings back."
      )
    ),
    HttpApiEndpoint.get("readyz", ROUTES.readyz, {
      success: Schema.Struct({
        status: Schema.Literal("ready"),
        servers: Schema.optionalKey(
          Schema.Array(
            Schema.Struct({
              role: Schema.Literals(["primary", "replica"]),
              server: Schema.String,
              reachable: Schema.Boolean,
              serving: Schema.optionalKey(Schema.Boolean),
              detail: Schema.optionalKey(Schema.String)
            })
          )
        )
      }),
      error: ServiceUnavailable
    }).annotateMerge(
      describe(
        "The service can serve",
        "Readiness: 503 while the primary database is unreachable or the server is shutting down. On PostgreSQL, `servers` lists the primary and each read replica (DATABASE_READ_URL) with whether it is reachable and serving reads, to whoever may read the metrics here (with METRICS_TOKEN only with the token, with METRICS_PORT only on that loopback port); a replica that is down leaves the service ready, its reads go to the primary."
      )
    ),
    HttpApiEndpoint.get("metrics", ROUTES.metrics, {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/plain" })),
      error: [Unauthorized, NotFound, ServiceUnavailable]
    }).annotateMerge(
      describe(
        "Operational figures of this process",
        "Prometheus text format: requests by route, method and status (`http_server_request_duration_seconds`, a histogram) and in flight, votes by outcome, MCP sessions and tool calls, the database's connections, the change feed's lag, the read cache and the process's memory. Per process: scrape every process. With METRICS_TOKEN set it takes `Authorization: Bearer <token>` (401 without it); with METRICS_PORT set it is served on that loopback port only, and here answers 404."
      )
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Directory", description: "The service itself: its guide, categories and health" })) {}

export class Api extends HttpApi.make("productdir")
  .add(ProductsApi)
  .add(EntitiesApi)
  .add(VotesApi)
  .add(AgentsApi)
  .add(PublishersApi)
  .add(PublishingApi)
  .add(DirectoryApi)
  // Every wrong field of a request at once; unknown fields in a body are refused, not ignored. A
  // body's failures keep what was sent, so the rules between its fields can be told beside them
  // (fieldErrors.ts).
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", onExcessProperty: "error", reportInput: true })
  .annotateMerge(
    OpenApi.annotations({
      title: "productdir",
      version: VERSION,
      description:
        "A directory of product records with community trust counters, read mostly by AI agents. Start at `/llms.txt`. Every error is an RFC 9457 problem (`application/problem+json`). A path served under other methods answers 405 with `Allow`.",
      license: { name: "MIT" },
      servers: [{ url: "/", description: "This server" }],
      transform: completeDocument
    })
  ) {}

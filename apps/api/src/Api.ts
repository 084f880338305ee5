/**
 * The API definition: every path, its inputs, outputs and errors. Shared by
 * the server, the OpenAPI document and the docs page; it holds no server code.
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  AgentCard,
  AgentView,
  CategoryList,
  ListSort,
  MAX_LIMIT,
  ProblemList,
  ProductPage,
  ProductRecord,
  VoteOutcome,
  VoteRequest
} from "@productdir/domain"
import { BadRequest, Gone, NotFound, ServiceUnavailable, TooManyRequests } from "./problems.ts"

const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT })).annotate({
  description: `Page size, 1..${MAX_LIMIT} (default 20)`
})
const Cursor = Schema.String.annotate({ description: "Opaque cursor from the previous page's `next_cursor`" })
const IdParam = Schema.String.annotate({ description: "Product id (UUID)", examples: ["0b7f3c8e-3b52-4c8e-9d0a-6f1f2d3c4b5a"] })
const SlugParam = Schema.String.annotate({ description: "Product slug, or its UUID", examples: ["acme-analytics"] })
const ReadErrors = [BadRequest, NotFound, Gone, ServiceUnavailable]

export class ProductsApi extends HttpApiGroup.make("products")
  .add(
    HttpApiEndpoint.get("getProduct", "/products/:id", {
      params: { id: IdParam },
      success: ProductRecord,
      error: ReadErrors
    }).annotate(OpenApi.Summary, "The product detail record (compatibility read)")
      .annotate(OpenApi.Description, "Exactly the fields of the interface spec. Agents: prefer `/entities/{slug}?format=agent`.")
  )
  .add(
    HttpApiEndpoint.get("getAgentCard", "/products/:id/agent-card", {
      params: { id: IdParam },
      success: AgentCard,
      error: ReadErrors
    }).annotate(OpenApi.Summary, "A compact card for tool-using agents, with every link and the vote template")
  )
  .add(
    HttpApiEndpoint.get("listProducts", "/products", {
      query: {
        q: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200))).annotate({ description: "Search words; every word must match the start of a word" }),
        category: Schema.optionalKey(Schema.String).annotate({ description: "Exact category label (see /categories)" }),
        sort: Schema.optionalKey(ListSort),
        updated_since: Schema.optionalKey(Schema.String).annotate({ description: "ISO 8601 timestamp: only products changed since" }),
        limit: Schema.optionalKey(Limit),
        cursor: Schema.optionalKey(Cursor)
      },
      success: ProductPage,
      error: [BadRequest, ServiceUnavailable]
    }).annotate(OpenApi.Summary, "Search and list products, with cursor pagination")
  )
  .annotate(OpenApi.Title, "Products") {}

export class EntitiesApi extends HttpApiGroup.make("entities")
  .add(
    HttpApiEndpoint.get("getEntity", "/entities/:slug", {
      params: { slug: SlugParam },
      query: {
        format: Schema.optionalKey(Schema.Literals(["json", "agent"])).annotate({
          description: "`agent`: the decision view; `json` or absent: the detail record"
        })
      },
      success: [AgentView, ProductRecord],
      error: ReadErrors
    }).annotate(OpenApi.Summary, "The agent decision view (format=agent) or the detail record")
  )
  .add(
    HttpApiEndpoint.get("getProblems", "/entities/:slug/problems", {
      params: { slug: SlugParam },
      query: { limit: Schema.optionalKey(Limit), cursor: Schema.optionalKey(Cursor) },
      success: ProblemList,
      error: ReadErrors
    }).annotate(OpenApi.Summary, "Known problems: catalog limitations and community reports, most reported first")
  )
  .annotate(OpenApi.Title, "Agent reads") {}

export class VotesApi extends HttpApiGroup.make("votes")
  .add(
    HttpApiEndpoint.post("vote", "/vote", {
      payload: VoteRequest,
      success: [VoteOutcome.pipe(HttpApiSchema.status(201)), VoteOutcome],
      error: [BadRequest, NotFound, Gone, TooManyRequests, ServiceUnavailable]
    }).annotate(OpenApi.Summary, "Vote for (up) or against (down) a product")
      .annotate(
        OpenApi.Description,
        "One live vote per product and voter: 201 `recorded` for a new vote, 200 `unchanged` or `changed`. A down vote with a `reason` reports a problem. Rate limited per voter and per client address (429 with Retry-After)."
      )
  )
  .annotate(OpenApi.Title, "Votes") {}

export class DirectoryApi extends HttpApiGroup.make("directory")
  .add(
    HttpApiEndpoint.get("listCategories", "/categories", { success: CategoryList, error: ServiceUnavailable })
      .annotate(OpenApi.Summary, "Categories with product counts")
  )
  .add(
    HttpApiEndpoint.get("index", "/", { success: Schema.Unknown })
      .annotate(OpenApi.Summary, "What this service is and every path it serves")
  )
  .add(
    HttpApiEndpoint.get("llms", "/llms.txt", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/markdown" }))
    }).annotate(OpenApi.Summary, "How an agent should use this service (llms.txt)")
  )
  .add(
    HttpApiEndpoint.get("healthz", "/healthz", { success: Schema.Struct({ status: Schema.Literal("ok") }) })
      .annotate(OpenApi.Summary, "The process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz", {
      success: Schema.Struct({ status: Schema.Literal("ready") }),
      error: ServiceUnavailable
    }).annotate(OpenApi.Summary, "The store is reachable (503 when not)")
  )
  .annotate(OpenApi.Title, "Directory") {}

export class Api extends HttpApi.make("productdir")
  .add(ProductsApi)
  .add(EntitiesApi)
  .add(VotesApi)
  .add(DirectoryApi)
  .middleware(HttpApiMiddleware.ProblemDetails)
  .annotate(OpenApi.Title, "productdir")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "A directory of product records with community trust counters, read mostly by AI agents. Start at `/llms.txt`."
  ) {}

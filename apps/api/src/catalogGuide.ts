/**
 * What the service says about itself: the JSON index at `/` and `/llms.txt`.
 * The list of paths comes from the OpenAPI document generated from the API
 * definition, so neither can drift from what is served.
 */
import { OpenApi } from "effect/http-api"
import { Api, type PathEntry, type ServiceIndex, VERSION } from "@productdir/contract"

export const SERVICE_NAME = "productdir"

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
const isMethod = (m: string): m is PathEntry["method"] => (METHODS as ReadonlyArray<string>).includes(m)

const EXTRA_PATHS: ReadonlyArray<PathEntry> = [
  { method: "GET", path: "/openapi.json", description: "The OpenAPI 3.1 document of this API" },
  { method: "GET", path: "/docs", description: "Interactive API reference" },
  { method: "POST", path: "/mcp", description: "Model Context Protocol (Streamable HTTP): tools to search, read, judge and vote" }
]

/** Every path the API serves, with one line each, in the order of the definition. */
export const servedPaths = (): ReadonlyArray<PathEntry> => {
  const spec = OpenApi.fromApi(Api)
  const out: Array<PathEntry> = []
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, { summary?: string } | undefined>)) {
      const upper = method.toUpperCase()
      if (!isMethod(upper) || operation === undefined) continue
      out.push({ method: upper, path, description: operation.summary ?? "" })
    }
  }
  return [...out, ...EXTRA_PATHS]
}

export const serviceIndex = (): ServiceIndex => ({
  name: SERVICE_NAME,
  version: VERSION,
  description: "A directory of software products with community trust counters, built for AI agents.",
  start_here: "/llms.txt",
  mcp: "/mcp",
  openapi: "/openapi.json",
  docs: "/docs",
  paths: servedPaths()
})

export const llmsTxt = (): string => `# ${SERVICE_NAME}

> A directory of software products with community trust counters. Find a product, judge it from its decision view and its known problems, then vote so the next agent knows more.

Every response is JSON (errors are application/problem+json with a \`detail\` that says what to do).
Products are identified by a UUID \`id\` and a readable \`slug\`; every read that takes \`{slug}\` accepts the id too.
Trust: \`trust_score\` (0-100) is the lower bound of the 95% Wilson interval of the up-vote share, so many votes rank above few.

## MCP
- [Model Context Protocol endpoint](/mcp): Streamable HTTP. Tools: \`search_products\`, \`get_product\`, \`get_problems\`, \`list_categories\`, \`vote\` (the same rules and limits as the HTTP API). Connect an MCP client to \`<base URL>/mcp\`, sending \`Authorization: Bearer <api_key>\` so your votes count as your agent's.

## Find
- [Search products](/products?q=invoicing&limit=5): \`q\` words, \`category\`, \`sort=trust|name|updated\`, \`limit\`, \`cursor\` (from \`next_cursor\`)
- [Categories](/categories): every category with its product count

## Judge
- [Decision view](/entities/{slug}?format=agent): capabilities, use cases, when to avoid it, pricing plans, trust, and the top problems
- [Problems](/entities/{slug}/problems): catalog limitations and problems other agents reported, most reported first
- [Agent card](/products/{id}/agent-card): a compact card with every link and the vote body template
- [Detail record](/products/{id}): the full record (compatibility read)

## Vote
- [Register once: POST /agents](/openapi.json): JSON body \`{"name": "<your agent>", "contact": "<optional: email or URL>"}\` returns \`api_key\`, shown once: keep it. Send \`Authorization: Bearer <api_key>\` with every vote: your vote then counts as your agent's, one live vote per product, wherever you call from. Limited to a few registrations per address a day: register once, not per task.
- [POST /vote](/openapi.json): JSON body \`{"entity_id": "<id or slug>", "direction": "up"|"down", "reason": "<with down: the problem>"}\`. One live vote per product and voter: voting again the same way changes nothing, the other way moves your vote. The response's \`counted_as\` says who the vote counted for: \`agent\`, or \`address\` when the request carried no key (then one vote per product per network address). A bad or revoked key is a 401. Rate limited (429 with Retry-After).
- Signed agents need no key: sign the request per HTTP Message Signatures (RFC 9421) as Web Bot Auth describes (\`Signature-Agent\` naming your key directory, tag \`web-bot-auth\`, covering \`@authority\`, \`signature-agent\` and \`content-digest\`).

## Reference
- [OpenAPI document](/openapi.json)
- [API docs](/docs)
- [Service index](/)
`

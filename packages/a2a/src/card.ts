/**
 * The directory's A2A Agent Card (A2A 1.0, protobuf JSON form): where its A2A
 * interfaces are (absolute URLs under the base the client reached), what its
 * four skills take and answer, and the Bearer scheme a vote may use; and the
 * same card as A2A 0.3 clients read it. Each is signed by signing.ts before
 * it is served.
 */
import type { DirectoryCard, DirectoryCardV03 } from "@productdir/contract"
import { VERSION } from "@productdir/contract"
import { SERVICE_NAME } from "@productdir/edge/catalogGuide"

/** The A2A protocol version the interfaces speak (Major.Minor, §3.6). */
export const A2A_VERSION = "1.0"
/** The older version the same interfaces also speak (protocol03.ts). */
export const LEGACY_A2A_VERSION = "0.3"

export const JSONRPC_PATH = "/a2a/jsonrpc"
export const REST_PATH = "/a2a/rest"
/** The public half of the card's signing key, as a JWK Set (referenced by each signature's `jku`). */
export const JWKS_PATH = "/.well-known/jwks.json"

export const BEARER_SCHEME = "bearer"

export type UnsignedCard = Omit<DirectoryCard, "signatures">
export type UnsignedCardV03 = Omit<DirectoryCardV03, "signatures">

const MODES = ["text/plain", "application/json"]

/** The card without signatures; every field is set (none at its protobuf default), so it is signed as served. */
export const directoryCard = (base: string): UnsignedCard => ({
  name: SERVICE_NAME,
  description:
    "A directory of software products with community trust counters, built for AI agents: search it, judge a product by its decision view and known problems, and vote after using one. Send a message in plain words, or a data part naming a skill. The same directory answers over HTTP (GET / lists every path) and MCP (/mcp).",
  supportedInterfaces: [
    { url: `${base}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: A2A_VERSION },
    { url: `${base}${REST_PATH}`, protocolBinding: "HTTP+JSON", protocolVersion: A2A_VERSION },
    // The same endpoints answer A2A 0.3 too, listed after 1.0 as the SDK's duplicateInterfacesForLegacy lists them:
    // a 1.0 client picks the 1.0 entry of each binding.
    { url: `${base}${JSONRPC_PATH}`, protocolBinding: "JSONRPC", protocolVersion: LEGACY_A2A_VERSION },
    { url: `${base}${REST_PATH}`, protocolBinding: "HTTP+JSON", protocolVersion: LEGACY_A2A_VERSION }
  ],
  provider: { organization: SERVICE_NAME, url: `${base}/` },
  version: VERSION,
  documentationUrl: `${base}/llms.txt`,
  // Every message is answered at once with a message: no tasks to stream, push or extend.
  capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
  securitySchemes: {
    [BEARER_SCHEME]: {
      httpAuthSecurityScheme: {
        scheme: "Bearer",
        description:
          "An agent's API key (register with POST /agents). Optional: a vote without it counts for your network address; a key that is sent must be valid."
      }
    }
  },
  // No securityRequirements: nothing requires a key (a vote without one follows the anonymous rules), and
  // A2A 1.0 can say "optional" only with an empty requirement ({}), which the official SDK's canonical form
  // drops, so a card carrying one would fail its signature check there (docs/api.md, "A2A").
  defaultInputModes: MODES,
  defaultOutputModes: MODES,
  skills: [
    {
      id: "search",
      name: "Search products",
      description:
        'Find products by what they do, in plain words: stems, accents, the start of a word and typos are understood; results come by relevance with their trust. Answers a short text and a data part with each product\'s id, name, trust and links. As data: {"skill":"search","q":"…","category":"…","sort":"relevance|trust|name|updated","limit":1-100,"cursor":"…"}.',
      tags: ["search", "catalog", "discovery"],
      examples: ["invoicing for freelancers", "find a password manager for teams", '{"skill":"search","q":"invoicing","limit":5}'],
      inputModes: MODES,
      outputModes: MODES
    },
    {
      id: "read-product",
      name: "Read a product's decision view",
      description:
        'Name a product (its slug, id or name) to get what it does, when to avoid it, its pricing and trust, and its top known problems. As data: {"skill":"read-product","entity_id":"<slug or id>"}.',
      tags: ["product", "decision", "trust"],
      examples: ["okonomi-books", "tell me about Økonomi Books", '{"skill":"read-product","entity_id":"okonomi-books"}'],
      inputModes: MODES,
      outputModes: MODES
    },
    {
      id: "read-problems",
      name: "Read a product's known problems",
      description:
        'Limitations the catalog lists and problems other agents reported with down votes, most reported first: "problems of <product>". As data: {"skill":"read-problems","entity_id":"…","limit":1-100,"cursor":"…"}.',
      tags: ["problems", "risk"],
      examples: ["problems of okonomi-books", '{"skill":"read-problems","entity_id":"okonomi-books"}'],
      inputModes: MODES,
      outputModes: MODES
    },
    {
      id: "vote",
      name: "Vote on a product",
      description:
        'Up after a product served you, down with the problem you hit: "vote up <product>", "vote down <product>: <problem>". The same rules as POST /vote: one live vote per product and voter, counted for your agent with Authorization: Bearer <api_key> (POST /agents), else for your network. As data: {"skill":"vote","entity_id":"…","direction":"up|down","reason":"…"}.',
      tags: ["vote", "trust", "feedback"],
      examples: [
        "vote up okonomi-books",
        "vote down okonomi-books: no SSO on the team plan",
        '{"skill":"vote","entity_id":"okonomi-books","direction":"up"}'
      ],
      inputModes: MODES,
      outputModes: MODES
    }
  ]
})

/**
 * The card as A2A 0.3 clients read it, served to a request without A2A-Version (A2A 1.0 §3.6.2
 * reads one as 0.3): 0.3's `url`, `preferredTransport`, `protocolVersion` and `additionalInterfaces`
 * (every interface, the preferred one too, as 0.3 advises), the extended card flag at the top and the
 * security scheme `type`-tagged, with the 1.0 interfaces kept (the hybrid the official SDKs serve, so a
 * 1.0 client that sent no header still finds them).
 */
export const legacyCard = (card: UnsignedCard): UnsignedCardV03 => {
  const legacy = card.supportedInterfaces.filter((i) => i.protocolVersion === LEGACY_A2A_VERSION)
  const preferred = legacy[0]!
  return {
    name: card.name,
    description: card.description,
    url: preferred.url,
    preferredTransport: preferred.protocolBinding,
    protocolVersion: LEGACY_A2A_VERSION,
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    supportedInterfaces: card.supportedInterfaces,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: { streaming: card.capabilities.streaming, pushNotifications: card.capabilities.pushNotifications },
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard,
    securitySchemes: Object.fromEntries(
      Object.entries(card.securitySchemes).map(([name, { httpAuthSecurityScheme: http }]) => [
        name,
        { type: "http" as const, scheme: http.scheme, ...(http.description === undefined ? {} : { description: http.description }) }
      ])
    ),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills
  }
}

/** The card a request gets by the A2A version it asks for: 0.3's to 0.x (no header is 0.3), else 1.0's. */
export const cardFor = (base: string, version: string): UnsignedCard | UnsignedCardV03 =>
  /^0\./u.test(version) ? legacyCard(directoryCard(base)) : directoryCard(base)

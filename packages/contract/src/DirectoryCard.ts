/**
 * `GET /.well-known/agent-card.json`: the directory's own A2A Agent Card in
 * A2A 1.0's JSON form (the protobuf JSON mapping of `lf.a2a.v1.AgentCard`:
 * camelCase names, `oneof` members named by their field), so an A2A client
 * (the official SDKs) finds the directory's A2A interfaces, its skills, the
 * Bearer scheme a vote may use, and the card's signatures.
 *
 * Fields at their protobuf default (an empty list, an empty string) are left
 * out rather than sent empty: A2A 1.0 signs the card with such fields removed
 * (§8.4.1), so a card that carries none is signed exactly as it is served.
 *
 * A request without `A2A-Version` is an A2A 0.3 request (A2A 1.0 §3.6.2), and
 * is answered with the card as 0.3 clients read it (`DirectoryCardV03`): 0.3's
 * `url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces` and
 * `type`-tagged security schemes, with the 1.0 interfaces kept beside them, as
 * the official SDKs serve it. `A2A-Version: 1.0` gets the 1.0 card.
 */
import { Schema } from "effect"

export const AgentInterface = Schema.Struct({
  url: Schema.String.annotate({ description: "Absolute URL of the interface" }),
  protocolBinding: Schema.String.annotate({ description: "`JSONRPC` or `HTTP+JSON` (A2A's own bindings)" }),
  protocolVersion: Schema.String.annotate({ description: "The A2A protocol version the interface speaks: `1.0`" })
}).annotate({ identifier: "AgentInterface" })

export const SecurityScheme = Schema.Struct({
  httpAuthSecurityScheme: Schema.Struct({
    scheme: Schema.String.annotate({ description: "The HTTP authentication scheme: `Bearer`" }),
    description: Schema.optionalKey(Schema.String)
  })
}).annotate({ identifier: "AgentSecurityScheme" })

export const AgentSkill = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  examples: Schema.Array(Schema.String),
  inputModes: Schema.Array(Schema.String),
  outputModes: Schema.Array(Schema.String)
}).annotate({ identifier: "AgentSkill" })

/** One JWS over the card (§8.4.2): its payload is the card itself, canonical (RFC 8785), without `signatures`. */
export const AgentCardSignature = Schema.Struct({
  protected: Schema.String.annotate({ description: "The base64url protected header: alg, typ, kid and jku (the key set)" }),
  signature: Schema.String.annotate({ description: "The base64url signature" })
}).annotate({ identifier: "AgentCardSignature" })

export const DirectoryCard = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  supportedInterfaces: Schema.Array(AgentInterface),
  provider: Schema.Struct({ organization: Schema.String, url: Schema.String }),
  version: Schema.String,
  documentationUrl: Schema.String,
  capabilities: Schema.Struct({
    streaming: Schema.Boolean,
    pushNotifications: Schema.Boolean,
    extendedAgentCard: Schema.Boolean
  }),
  securitySchemes: Schema.Record(Schema.String, SecurityScheme).annotate({
    description: "The Bearer scheme of an agent's API key; no securityRequirements: a key is optional, and when sent must be valid"
  }),
  defaultInputModes: Schema.Array(Schema.String),
  defaultOutputModes: Schema.Array(Schema.String),
  skills: Schema.Array(AgentSkill),
  signatures: Schema.optionalKey(Schema.Array(AgentCardSignature))
}).annotate({ identifier: "DirectoryCard", description: "An A2A 1.0 Agent Card (protobuf JSON form) describing this directory" })
export type DirectoryCard = typeof DirectoryCard.Type

/** A2A 0.3's form of a security scheme: JSON Schema's, tagged by `type`. */
export const LegacySecurityScheme = Schema.Struct({
  type: Schema.Literal("http"),
  scheme: Schema.String.annotate({ description: "The HTTP authentication scheme: `Bearer`" }),
  description: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "AgentSecuritySchemeV03" })

/** An A2A 0.3 interface: its URL and transport. */
export const LegacyAgentInterface = Schema.Struct({
  url: Schema.String.annotate({ description: "Absolute URL of the interface" }),
  transport: Schema.String.annotate({ description: "`JSONRPC` or `HTTP+JSON`" })
}).annotate({ identifier: "AgentInterfaceV03" })

export const DirectoryCardV03 = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  url: Schema.String.annotate({ description: "The preferred interface's URL (A2A 0.3)" }),
  preferredTransport: Schema.String.annotate({ description: "The transport at `url`: `JSONRPC`" }),
  protocolVersion: Schema.String.annotate({ description: "The A2A protocol version of `url` and `additionalInterfaces`: `0.3`" }),
  additionalInterfaces: Schema.Array(LegacyAgentInterface),
  supportedInterfaces: Schema.Array(AgentInterface).annotate({
    description: "Every interface with its protocol version, as A2A 1.0 lists them"
  }),
  provider: Schema.Struct({ organization: Schema.String, url: Schema.String }),
  version: Schema.String,
  documentationUrl: Schema.String,
  capabilities: Schema.Struct({ streaming: Schema.Boolean, pushNotifications: Schema.Boolean }),
  supportsAuthenticatedExtendedCard: Schema.Boolean,
  securitySchemes: Schema.Record(Schema.String, LegacySecurityScheme),
  defaultInputModes: Schema.Array(Schema.String),
  defaultOutputModes: Schema.Array(Schema.String),
  skills: Schema.Array(AgentSkill),
  signatures: Schema.optionalKey(Schema.Array(AgentCardSignature))
}).annotate({
  identifier: "DirectoryCardV03",
  description:
    "The card for A2A 0.3 clients (a request without A2A-Version): 0.3's fields, the 1.0 interfaces beside them; signed over itself (RFC 8785, without signatures)"
})
export type DirectoryCardV03 = typeof DirectoryCardV03.Type

/** What GET /.well-known/agent-card.json answers: the 1.0 card to `A2A-Version: 1.0`, else the 0.3 one. */
export const ServedDirectoryCard = Schema.Union([DirectoryCard, DirectoryCardV03])

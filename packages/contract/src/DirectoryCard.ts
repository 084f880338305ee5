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

/**
 * `GET /.well-known/agent-card.json`: the directory's own A2A Agent Card (v1.0
 * fields), so an agent that discovers services by their card finds this one,
 * its two interfaces (HTTP and MCP) and what it can do (skills).
 */
import { Schema } from "effect"

export const AgentInterface = Schema.Struct({
  url: Schema.String.annotate({ description: "Absolute URL of the interface" }),
  protocol_binding: Schema.String.annotate({ description: "`HTTP+JSON` (the REST API) or `MCP` (Streamable HTTP)" }),
  protocol_version: Schema.String
}).annotate({ identifier: "AgentInterface" })

export const AgentSkill = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  tags: Schema.Array(Schema.String),
  examples: Schema.Array(Schema.String),
  input_modes: Schema.Array(Schema.String),
  output_modes: Schema.Array(Schema.String)
}).annotate({ identifier: "AgentSkill" })

export const DirectoryCard = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  version: Schema.String,
  supported_interfaces: Schema.Array(AgentInterface),
  provider: Schema.Struct({ organization: Schema.String, url: Schema.String }),
  documentation_url: Schema.String,
  capabilities: Schema.Struct({
    streaming: Schema.Boolean,
    push_notifications: Schema.Boolean,
    extended_agent_card: Schema.Boolean
  }),
  default_input_modes: Schema.Array(Schema.String),
  default_output_modes: Schema.Array(Schema.String),
  skills: Schema.Array(AgentSkill)
}).annotate({ identifier: "DirectoryCard", description: "An A2A Agent Card (v1.0 fields) describing this directory" })
export type DirectoryCard = typeof DirectoryCard.Type

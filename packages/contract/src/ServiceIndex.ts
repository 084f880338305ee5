/** `GET /`: what the service is, and every path it serves. */
import { Schema } from "effect"

export const QueryParameter = Schema.Struct({
  name: Schema.String,
  required: Schema.Boolean,
  description: Schema.String
}).annotate({ identifier: "QueryParameter" })

export const PathEntry = Schema.Struct({
  method: Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  path: Schema.String,
  description: Schema.String,
  query: Schema.Array(QueryParameter).annotate({ description: "The query parameters the path takes (none: an empty list)" })
}).annotate({ identifier: "PathEntry" })
export type PathEntry = typeof PathEntry.Type

export const ServiceIndex = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  description: Schema.String,
  start_here: Schema.String.annotate({ description: "The guide for agents" }),
  mcp: Schema.String.annotate({ description: "The Model Context Protocol endpoint" }),
  openapi: Schema.String,
  docs: Schema.String,
  agent_card: Schema.String.annotate({ description: "This directory's A2A Agent Card" }),
  search: Schema.String.annotate({
    description: "Search, as a URI template (RFC 6570): replace {q} with the words, URL-encoded; each result links onward"
  }),
  paths: Schema.Array(PathEntry)
}).annotate({ identifier: "ServiceIndex" })
export type ServiceIndex = typeof ServiceIndex.Type

/** `GET /`: what the service is, and every path it serves. */
import { Schema } from "effect"

export const PathEntry = Schema.Struct({
  method: Schema.Literals(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  path: Schema.String,
  description: Schema.String
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
  paths: Schema.Array(PathEntry)
}).annotate({ identifier: "ServiceIndex" })
export type ServiceIndex = typeof ServiceIndex.Type

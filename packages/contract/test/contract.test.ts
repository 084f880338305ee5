import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { VoteBallot, VoteRequest } from "@productdir/domain"
import { Api, DirectoryTools, VERSION } from "../src/index.ts"

describe("the contract", () => {
  it("reports the version of its package, which every package shares", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8")) as { version: string }
    expect(VERSION).toBe(manifest.version)
    expect(OpenApi.fromApi(Api).info.version).toBe(VERSION)
  })

  it("defines the vote once: POST /vote's payload is the domain's VoteRequest, the vote tool's parameters its ballot", () => {
    // The tool's are the ballot: the same fields and rules, without the voter_id POST /vote accepts and ignores.
    expect(DirectoryTools.tools.vote.parametersSchema).toBe(VoteBallot)
    const payload = Api.groups.votes.endpoints.vote.payload.get("application/json")?.schemas[0]
    expect(payload).toBeDefined()
    expect(Schema.toJsonSchemaDocument(payload!)).toEqual(Schema.toJsonSchemaDocument(VoteRequest))
    const { voter_id: _voterId, ...ballotFields } = VoteRequest.fields
    expect(Object.keys(VoteBallot.fields)).toEqual(Object.keys(ballotFields))
  })

  it("describes every operation", () => {
    const document = OpenApi.fromApi(Api)
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, { summary?: string }>)) {
        expect(operation.summary, `${method} ${path}`).toBeTruthy()
      }
    }
  })
})

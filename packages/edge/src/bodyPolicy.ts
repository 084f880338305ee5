/**
 * What a request body must be, decided before a byte of it is read:
 * - at most 16 KiB (413): a vote is a small JSON object;
 * - not content-encoded (415 with `Accept-Encoding: identity`): a body this small
 *   gains nothing from compression, and decoding one would let a small request
 *   expand into a large one;
 * - JSON, said so by `Content-Type: application/json`, on the endpoints that read
 *   JSON (415): a body with no content type is not guessed at; and UTF-8, the only
 *   encoding of JSON between systems (RFC 8259): a body declared in another charset
 *   (415) would be read as the wrong text;
 * - read, a JSON body must be UTF-8 (decoding it anyway would put U+FFFD in place
 *   of its bad bytes, and store that) and give each name of an object once
 *   (parsers differ on which of two counts), nested at most MAX_NESTING levels (every body
 *   of ours is a few levels deep; a deep one makes every later step's work and answer grow
 *   with its depth): else a 400, a JSON-RPC error on /mcp.
 *   A2A's routes apply the same rules (unreadableBody, MAX_NESTING) and answer each in their own envelopes
 *   (packages/a2a/src/routes.ts).
 * The endpoints that read JSON come from the API definition.
 */
import { ByteSize, Context, Effect, Exit, Predicate, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, OpenApi } from "effect/http-api"
import { Api, type FieldIssue, fieldErrors, fieldName, GIVEN_TWICE } from "@productdir/contract"
import { deeperThan, duplicateKeys, ROUTES } from "@productdir/domain"
import { badFields, problem, TOO_LARGE } from "./problems/problemResponses.ts"

export const MAX_BODY = ByteSize.kibibytes(16)

/** Levels of objects and arrays a JSON body may nest: a vote is one, an MCP or A2A message a handful. */
export const MAX_NESTING = 32

/** The sentence a body nested past MAX_NESTING is refused with, at every door. */
export const TOO_DEEP = `The body nests objects and arrays more than ${MAX_NESTING} levels deep; what this API takes is a few levels at most.`

/** "POST /vote", … : every operation whose request body is JSON. */
const jsonBodies = new Set(
  Object.entries(OpenApi.fromApi(Api).paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, { requestBody?: { content?: Record<string, unknown> } } | undefined>)
      .filter(([, operation]) => operation?.requestBody?.content?.["application/json"] !== undefined)
      .map(([method]) => `${method.toUpperCase()} ${path}`)
  )
)

/**
 * "POST /vote" → what its JSON body decodes with, read as the API reads it (its PayloadParseOptions: every
 * issue, unknown fields refused): a body refused for a repeated name is also checked against it, so that every wrong field is
 * named in the one answer, as for any other refusal.
 */
const payloadChecks = (() => {
  const checks = new Map<string, (value: unknown) => ReadonlyArray<FieldIssue>>()
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const schema = endpoint.payload.get("application/json")?.schemas[0]
      if (schema === undefined) return
      const options = Context.getOrUndefined(mergedAnnotations, HttpApi.PayloadParseOptions)
      const decode = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>, options)
      checks.set(`${endpoint.method} ${endpoint.path}`, (value) => {
        const exit = decode(value)
        return Exit.isSuccess(exit) || exit.cause.reasons[0]?._tag !== "Fail"
          ? []
          : fieldErrors(exit.cause.reasons[0].error.issue, "payload")
      })
    }
  })
  return checks
})()

/** Whether a Content-Type says JSON: application/json, or a +json type (application/a2a+json). */
export const isJson = (contentType: string | undefined): boolean => {
  const type = contentType?.split(";")[0]?.trim().toLowerCase()
  return type === "application/json" || (type !== undefined && /^application\/[a-z0-9.+-]+\+json$/.test(type))
}

/** The charset a Content-Type declares, lower case; undefined when it declares none. */
const charsetOf = (contentType: string | undefined): string | undefined =>
  /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "")?.[1]?.toLowerCase()

/**
 * What every door refuses of a body before reading a byte of it, as a status, a sentence and the headers that go
 * with it: over MAX_BODY (413), content-encoded (415) or declared in a charset other than UTF-8 (415). The API's
 * paths answer it as a problem, A2A's in their own envelopes (packages/a2a/src/routes.ts).
 */
export const unreadableBody = (
  headers: Readonly<Record<string, string | undefined>>
): { readonly status: 413 | 415; readonly detail: string; readonly headers?: Record<string, string> } | undefined => {
  if (Number(headers["content-length"] ?? 0) > Number(MAX_BODY)) return { status: 413, detail: TOO_LARGE }
  const encoding = headers["content-encoding"]?.trim().toLowerCase()
  if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
    return {
      status: 415,
      detail: `Request bodies must not be content-encoded (got Content-Encoding: ${encoding}); send the JSON uncompressed.`,
      headers: { "accept-encoding": "identity" }
    }
  }
  const charset = charsetOf(headers["content-type"])
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return { status: 415, detail: `JSON is read as UTF-8 only; send the body in UTF-8 (got charset=${charset}).` }
  }
  return undefined
}

export const bodyPolicy = <E, R>(
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const declared = Number(request.headers["content-length"] ?? 0)
    const hasBody = declared > 0 || request.headers["transfer-encoding"] !== undefined
    const path = request.url.split("?")[0] ?? "/"
    // A2A's routes refuse a body in their own envelopes (a JSON-RPC error, google.rpc.Status), by the same rules.
    if (hasBody && !path.startsWith(A2A_PREFIX)) {
      const unreadable = unreadableBody(request.headers)
      if (unreadable !== undefined) return problem(unreadable.status, unreadable.detail, unreadable.headers)
      const contentType = request.headers["content-type"]
      if (jsonBodies.has(`${request.method} ${path}`) && !isJson(contentType)) {
        return problem(
          415,
          `The request body must be JSON: send Content-Type: application/json (got ${contentType === undefined ? "no Content-Type" : `Content-Type: ${contentType}`}).`
        )
      }
      if (isJson(contentType)) {
        // Read once here (the request keeps it for the handler); a body that cannot be read is the handler's to answer.
        const bytes = yield* Effect.option(Effect.provideService(request.arrayBuffer, HttpServerRequest.MaxBodySize, MAX_BODY))
        if (bytes._tag === "Some") {
          const text = utf8Text(bytes.value)
          if (text === undefined) return notUtf8(path)
          if (deeperThan(text, MAX_NESTING)) return tooDeep(path)
          const repeated = duplicateKeys(text)
          if (repeated.length > 0) return namesRepeated(path, repeated, payloadChecks.get(`${request.method} ${path}`), text)
          if (path === ROUTES.mcp) {
            const call = toolCallProblem(text)
            if (call !== undefined) return call
          }
        }
      }
    }
    return yield* Effect.provideService(httpEffect, HttpServerRequest.MaxBodySize, MAX_BODY)
  })

const A2A_PREFIX = "/a2a/"
const NOT_UTF8 = "The request body is not valid UTF-8: JSON is read as UTF-8 only (RFC 8259), and broken bytes would be stored as U+FFFD."

const strictUtf8 = new TextDecoder("utf-8", { fatal: true })

/** A body's text, decoded once and strictly; undefined when it is not UTF-8. */
export const utf8Text = (bytes: ArrayBuffer): string | undefined => {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** An MCP message refused before the MCP server reads it: a JSON-RPC error with no id, as the transport says. */
const jsonRpcRefusal = (code: number, message: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: null, error: { code, message } }, { status: 400 })

/**
 * A JSON body that repeats a name in an object (duplicateKeys.ts), refused naming each, in the words of
 * its door; with the body's other wrong fields (as JSON.parse reads it: the last of a repeated name's values).
 */
const namesRepeated = (
  path: string,
  repeated: ReadonlyArray<ReadonlyArray<string | number>>,
  check: ((value: unknown) => ReadonlyArray<FieldIssue>) | undefined,
  text: string
): HttpServerResponse.HttpServerResponse => {
  if (path === ROUTES.mcp)
    return jsonRpcRefusal(-32600, `Invalid Request: ${repeated.map((p) => `${fieldName(p)} ${GIVEN_TWICE}`).join("; ")}`)
  const given = repeated.map((p): FieldIssue => ({ path: ["payload", ...p], message: GIVEN_TWICE }))
  const others = check === undefined ? [] : othersOf(check, text)
  return badFields([...given, ...others])
}

/** The body's wrong fields as JSON.parse reads it; none when it is no JSON at all (its repeated names are still named). */
const othersOf = (check: (value: unknown) => ReadonlyArray<FieldIssue>, text: string): ReadonlyArray<FieldIssue> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return []
  }
  return check(value)
}

/**
 * A tools/call whose params are not a tool's name and an object of its arguments (`"arguments": "crm"`):
 * the MCP library answers only "Invalid method parameters", which names nothing. Said here, with the
 * request's id, naming each wrong field; a message of another shape is the library's to judge.
 */
const toolCallProblem = (text: string): HttpServerResponse.HttpServerResponse | undefined => {
  // Every MCP message passes here: only a tools/call is parsed (the MCP server parses each message anyway).
  if (!text.includes('"tools/call"')) return undefined
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return undefined
  }
  if (
    !Predicate.isObject(message) ||
    message.method !== "tools/call" ||
    (typeof message.id !== "string" && typeof message.id !== "number")
  ) {
    return undefined
  }
  const params = message.params
  const wrong = !Predicate.isObject(params)
    ? ["params must be an object: the tool's name and its arguments"]
    : [
        ...(typeof params.name === "string" ? [] : ["params.name must be a tool's name (tools/list lists them)"]),
        ...(params.arguments === undefined || Predicate.isObject(params.arguments)
          ? []
          : ['params.arguments must be an object of the tool\'s arguments, like {"q": "crm"} (tools/list gives each tool\'s inputSchema)'])
      ]
  if (wrong.length === 0) return undefined
  return HttpServerResponse.jsonUnsafe({
    jsonrpc: "2.0",
    id: message.id,
    error: { code: -32602, message: `Invalid params: ${wrong.join("; ")}` }
  })
}

/** A JSON body nested past MAX_NESTING, refused in the words of the door it came to. */
const tooDeep = (path: string): HttpServerResponse.HttpServerResponse =>
  path === ROUTES.mcp ? jsonRpcRefusal(-32600, `Invalid Request: ${TOO_DEEP}`) : problem(400, TOO_DEEP)

/** A JSON body that is not UTF-8, refused in the words of the door it came to. */
export const notUtf8 = (path: string): HttpServerResponse.HttpServerResponse =>
  path === ROUTES.mcp ? jsonRpcRefusal(-32700, `Parse error: ${NOT_UTF8}`) : problem(400, NOT_UTF8)

/**
 * The A2A server: the JSON-RPC binding at /a2a/jsonrpc and the HTTP+JSON
 * binding under /a2a/rest, both answering the same operations, and the card's
 * public key set at /.well-known/jwks.json. Outside the HttpApi (and so outside
 * /openapi.json): A2A's envelopes and errors are its own.
 *
 * Two versions on the same endpoints, chosen by A2A-Version (§3.6.2): 1.0 with
 * `A2A-Version: 1.0`; 0.3 without the header (or with 0.3), as 0.3 clients send
 * them: JSON-RPC's `message/send`, HTTP+JSON's paths under `/v1/` (protocol03.ts).
 *
 * Every message is answered at once with a message (no task is created), so of
 * the operations A2A defines: SendMessage answers; GetTask and CancelTask find
 * no task; ListTasks lists none; streaming, push notifications and the extended
 * card are refused with the errors §3.3.4 names, as the card's capabilities say.
 *
 * A request that carries an API key is served only when the key proves an agent
 * in good standing (a 401 otherwise, as POST /vote answers); a vote counts for
 * that agent, else for the signed agent or the client's address (packages/edge/src/callers/callers.ts).
 */
import { randomUUID } from "node:crypto"
import { Effect, Option, Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { type Caster, deeperThan, duplicateKeys, fieldName } from "@productdir/domain"
import { Directory } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { Callers, type IdentifyError, refusalResponse } from "@productdir/edge/callers/callers"
import { isJson, MAX_NESTING, TOO_DEEP, unreadableBody, utf8Text } from "@productdir/edge/bodyPolicy"
import { cachedJson } from "@productdir/edge/responses/cachedJson"
import { exactId, parseKeepingId } from "@productdir/edge/jsonRpcIds"
import { isBodyTooLarge, problem, TOO_LARGE } from "@productdir/edge/problems/problemResponses"
import { baseUrlOf } from "@productdir/edge/links"
import { refusals } from "@productdir/edge/refusals"
import { JSONRPC_PATH, JWKS_PATH, REST_PATH } from "./card.ts"
import {
  CONTENT,
  isLegacyMethod,
  type LegacyMethod,
  legacyNoExtendedCard,
  legacyNoStreaming,
  legacyRestOperation,
  legacyRpcMessage,
  protoSendResponse,
  readLegacySend,
  readProtoSend
} from "./protocol03.ts"
import {
  A2aError,
  dialectOf,
  invalidParams,
  type JsonRpcId,
  jsonRpcError,
  legacyJsonRpcError,
  legacyRestError,
  type Reply,
  requestedVersion,
  restError,
  SendMessageRequest,
  violationsOf
} from "./protocol.ts"
import { CardSigner } from "./signing.ts"
import { A2A_DOOR, type Answer, interpret, makeSkills, PARTS, type PartPaths } from "./skills.ts"

/** The operations of A2A 1.0 by their JSON-RPC names (§5.3). */
const OPERATIONS = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard"
] as const
type Operation = (typeof OPERATIONS)[number]

const isOperation = (method: string): method is Operation => (OPERATIONS as ReadonlyArray<string>).includes(method)

/** A2A 0.3's method names, which 1.0 renamed: a 1.0 request that sends one is told the new name. */
const RENAMED: ReadonlyMap<string, Operation> = new Map([
  ["message/send", "SendMessage"],
  ["message/stream", "SendStreamingMessage"],
  ["tasks/get", "GetTask"],
  ["tasks/list", "ListTasks"],
  ["tasks/cancel", "CancelTask"],
  ["tasks/resubscribe", "SubscribeToTask"],
  ["agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"]
])

const MEDIA = { text: "text/plain", data: "application/json" } as const

/** Which parts the client takes (configuration.acceptedOutputModes; none listed: both). */
const outputsFor = (accepted: ReadonlyArray<string> | undefined) => {
  const takes = (type: string) =>
    accepted === undefined ||
    accepted.length === 0 ||
    accepted.some((mode) => {
      const m = mode.split(";")[0]!.trim().toLowerCase()
      return m === type || m === "*/*" || m === `${type.split("/")[0]}/*`
    })
  return { text: takes(MEDIA.text), data: takes(MEDIA.data) }
}

/** 1.0's names for 0.3's: a 0.3 request (no A2A-Version) that sends a 1.0 name is told both ways. */
const LEGACY_NAME: Partial<Record<Operation, LegacyMethod>> = Object.fromEntries(
  [...RENAMED].flatMap(([legacy, operation]) => (isLegacyMethod(legacy) ? [[operation, legacy]] : []))
)

/**
 * A task operation's refusal: no task is kept, so every well-formed one is not found, but a request without a
 * task's id (or with one that is no string) is a wrong request, and says so, in 0.3 as in 1.0.
 */
const taskRefusal = (params: unknown): A2aError => {
  const id = isRecord(params) ? params.id : undefined
  if (id !== undefined && typeof id !== "string") return invalidParams([{ path: ["id"], message: "must be a string: the task's id" }])
  return id === undefined || id.trim() === "" ? invalidParams([{ path: ["id"], message: "is required: the task's id" }]) : noTask(id)
}

const noTask = (id: string) =>
  new A2aError({
    kind: "TaskNotFound",
    message: `No task ${JSON.stringify(id)}: this agent answers each message at once with a message and keeps no tasks.`
  })

const noStreaming = new A2aError({
  kind: "UnsupportedOperation",
  message: "This agent does not stream (capabilities.streaming is false): send the message with SendMessage (POST /message:send)."
})

const noPush = new A2aError({
  kind: "PushNotificationNotSupported",
  message: "This agent sends no push notifications (capabilities.pushNotifications is false): every message is answered in its response."
})

const noExtendedCard = new A2aError({
  kind: "UnsupportedOperation",
  message:
    "This agent has no extended card (capabilities.extendedAgentCard is false): its card at /.well-known/agent-card.json is the whole of it."
})

/** An identification that failed, as the A2A error of the same refusal (401, 429 or 503, with their headers). */
const refusedIdentity = (error: IdentifyError): A2aError => {
  const response = refusalResponse(error)
  const kept = ["www-authenticate", "accept-signature", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]
  const headers = Object.fromEntries(
    kept.flatMap((name) => (response.headers[name] === undefined ? [] : [[name, response.headers[name]!]]))
  )
  switch (error._tag) {
    case "CallerRefused":
      return new A2aError({ kind: "Unauthenticated", message: error.detail, headers })
    case "ClientLimited":
      return new A2aError({ kind: "RateLimited", message: refusals.RateLimited("Vote", error, A2A_DOOR), headers })
    case "EnrolmentLimited":
      return new A2aError({ kind: "RateLimited", message: refusals.RateLimited(refusals.NEW_SIGNED_AGENT, error, A2A_DOOR), headers })
    case "StoreError":
      return new A2aError({ kind: "Unavailable", message: refusals.StoreError(error), headers })
  }
}

const decodeSend = Schema.decodeUnknownEffect(SendMessageRequest)

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

export const A2aLive = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const callers = yield* Callers
    const signer = yield* CardSigner
    const skills = yield* makeSkills
    const directory = yield* Directory.Directory

    /**
     * A message, as 1.0 reads it (0.3's are read into the same request): interpreted, its skill
     * answered, the answer in the parts the client takes. `paths` name the parts as they were sent.
     */
    const reply = (
      sent: SendMessageRequest,
      base: string | undefined,
      caster: Effect.Effect<Caster, A2aError>,
      paths: PartPaths = PARTS
    ): Effect.Effect<Reply, A2aError> =>
      Effect.gen(function* () {
        if (sent.message.taskId !== undefined && sent.message.taskId !== "") return yield* noTask(sent.message.taskId)
        if (sent.configuration?.taskPushNotificationConfig !== undefined) return yield* noPush
        const outputs = outputsFor(sent.configuration?.acceptedOutputModes)
        if (!outputs.text && !outputs.data) {
          return yield* new A2aError({
            kind: "ContentTypeNotSupported",
            message: `This agent answers in ${MEDIA.text} and ${MEDIA.data}; configuration.acceptedOutputModes lists neither.`
          })
        }
        const answer: Answer = yield* skills(
          yield* interpret(sent.message, paths).pipe(Effect.provideService(Directory.Directory, directory)),
          base,
          caster
        )
        const contextId = sent.message.contextId !== undefined && sent.message.contextId !== "" ? sent.message.contextId : randomUUID()
        return {
          messageId: randomUUID(),
          contextId,
          text: outputs.text ? answer.text : undefined,
          data: outputs.data ? answer.data : undefined,
          skill: answer.skill
        }
      })

    /** SendMessage (1.0): the request decoded, answered as one agent message. */
    const sendMessage = (params: unknown, base: string | undefined, caster: Effect.Effect<Caster, A2aError>) =>
      Effect.gen(function* () {
        const sent = yield* decodeSend(params, { errors: "all" }).pipe(Effect.mapError((error) => invalidParams(violationsOf(error.issue))))
        if (sent.tenant !== undefined && sent.tenant !== "") {
          return yield* invalidParams([{ path: ["tenant"], message: "must be empty: this agent's interfaces declare no tenant" }])
        }
        const answer = yield* reply(sent, base, caster)
        return {
          message: {
            messageId: answer.messageId,
            contextId: answer.contextId,
            role: "ROLE_AGENT",
            parts: [
              ...(answer.text === undefined ? [] : [{ text: answer.text, mediaType: MEDIA.text }]),
              ...(answer.data === undefined ? [] : [{ data: answer.data, mediaType: MEDIA.data }])
            ],
            metadata: { skill: answer.skill }
          }
        }
      })

    /** One operation, whichever binding carried it. */
    const operate = (
      operation: Operation,
      params: unknown,
      base: string | undefined,
      caster: Effect.Effect<Caster, A2aError>
    ): Effect.Effect<unknown, A2aError> => {
      switch (operation) {
        case "SendMessage":
          return sendMessage(params, base, caster)
        case "GetTask":
        case "CancelTask":
          return Effect.fail(taskRefusal(params))
        case "ListTasks": {
          const pageSize = isRecord(params) ? params.pageSize : undefined
          if (pageSize !== undefined && !(Number.isInteger(pageSize) && (pageSize as number) >= 1 && (pageSize as number) <= 100)) {
            return Effect.fail(invalidParams([{ path: ["pageSize"], message: "must be a whole number from 1 to 100" }]))
          }
          return Effect.succeed({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 })
        }
        case "SendStreamingMessage":
        case "SubscribeToTask":
          return Effect.fail(noStreaming)
        case "CreateTaskPushNotificationConfig":
        case "GetTaskPushNotificationConfig":
        case "ListTaskPushNotificationConfigs":
        case "DeleteTaskPushNotificationConfig":
          return Effect.fail(noPush)
        case "GetExtendedAgentCard":
          return Effect.fail(noExtendedCard)
      }
    }

    /** One A2A 0.3 operation; message/send read and answered in the binding's 0.3 form. */
    const operateLegacy = (
      operation: LegacyMethod,
      params: unknown,
      binding: "jsonrpc" | "rest",
      base: string | undefined,
      caster: Effect.Effect<Caster, A2aError>
    ): Effect.Effect<unknown, A2aError> => {
      switch (operation) {
        case "message/send":
          return binding === "jsonrpc"
            ? Effect.map(
                Effect.flatMap(readLegacySend(params), (sent) => reply(sent, base, caster)),
                legacyRpcMessage
              )
            : Effect.map(
                Effect.flatMap(readProtoSend(params), (sent) => reply(sent, base, caster, CONTENT)),
                protoSendResponse
              )
        case "tasks/get":
        case "tasks/cancel":
          return Effect.fail(taskRefusal(params))
        case "message/stream":
        case "tasks/resubscribe":
          return Effect.fail(legacyNoStreaming)
        case "tasks/pushNotificationConfig/set":
        case "tasks/pushNotificationConfig/get":
        case "tasks/pushNotificationConfig/list":
        case "tasks/pushNotificationConfig/delete":
          return Effect.fail(noPush)
        case "agent/getAuthenticatedExtendedCard":
          return Effect.fail(legacyNoExtendedCard)
      }
    }

    /**
     * What every operation goes through, once its version is known: the API key the request
     * carries, checked at once (a bad key is refused whatever it came with). The caster is
     * resolved once, when a vote needs it, or here when a key was sent.
     */
    const admit = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const caster = yield* Effect.cached(callers.identify(request).pipe(Effect.mapError(refusedIdentity)))
        if (request.headers.authorization !== undefined) yield* caster
        return { caster, base: baseUrlOf(config.publicUrl, Option.some(request)) }
      })

    /**
     * The body as JSON, by the rules of every door (packages/edge/src/bodyPolicy.ts), each refusal in A2A's envelopes: over the
     * size limit (413, whether declared or found while reading), content-encoded or not UTF-8 (415), not JSON. With
     * the top-level id as spelled when no double holds it (packages/edge/src/jsonRpcIds.ts), for the answer to carry back.
     */
    const readJsonRpc = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const unreadable = unreadableBody(request.headers)
        if (unreadable !== undefined) {
          return yield* new A2aError({
            kind: unreadable.status === 413 ? "BodyTooLarge" : "BodyNotPlain",
            message: unreadable.detail,
            ...(unreadable.headers === undefined ? {} : { headers: unreadable.headers })
          })
        }
        if (!isJson(request.headers["content-type"])) {
          return yield* new A2aError({
            kind: "InvalidRequest",
            message: `Send the request as JSON: Content-Type: application/json (got ${request.headers["content-type"] ?? "no Content-Type"}).`
          })
        }
        // Decoded strictly: a lenient decoder puts U+FFFD in place of bad bytes, and that would be stored.
        const bytes = yield* request.arrayBuffer.pipe(
          Effect.catchTag("HttpServerError", (error) =>
            isBodyTooLarge(error) ? Effect.fail(new A2aError({ kind: "BodyTooLarge", message: TOO_LARGE })) : Effect.die(error)
          )
        )
        const text = utf8Text(bytes)
        if (text === undefined) {
          return yield* new A2aError({ kind: "ParseError", message: "The body is not valid UTF-8: JSON is read as UTF-8 only." })
        }
        if (deeperThan(text, MAX_NESTING)) return yield* new A2aError({ kind: "InvalidRequest", message: TOO_DEEP })
        const repeated = duplicateKeys(text)
        if (repeated.length > 0) {
          return yield* new A2aError({
            kind: "InvalidRequest",
            message: `A name is given more than once in one object: ${repeated.map((p) => fieldName(p)).join(", ")}. Send each once.`
          })
        }
        return yield* Effect.try({
          try: () => parseKeepingId(text),
          catch: () => new A2aError({ kind: "ParseError", message: "The body is not valid JSON." })
        })
      })

    /** The body as JSON (readJsonRpc's, without the id a JSON-RPC answer carries back). */
    const readJson = (request: HttpServerRequest.HttpServerRequest) => Effect.map(readJsonRpc(request), (read) => read.value)

    // ---- JSON-RPC (§9) --------------------------------------------------------------
    const jsonRpc = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        let id: JsonRpcId = null
        const dialect = dialectOf(requestedVersion(request.headers, request.url))
        const outcome = yield* Effect.result(
          Effect.gen(function* () {
            const { value: body, exactId: spelled } = yield* readJsonRpc(request)
            if (!isRecord(body)) {
              return yield* new A2aError({
                kind: "InvalidRequest",
                message: Array.isArray(body)
                  ? "Batches are not taken: send one JSON-RPC request per call."
                  : "The body must be a JSON-RPC 2.0 request object."
              })
            }
            if (typeof body.id === "string" || typeof body.id === "number") id = spelled === undefined ? body.id : exactId(spelled)
            const wrong = [
              ...(body.jsonrpc === "2.0" ? [] : [{ path: ["jsonrpc"], message: 'must be "2.0"' }]),
              ...(typeof body.method === "string"
                ? []
                : [{ path: ["method"], message: "must be the name of an A2A operation: SendMessage (A2A 1.0) or message/send (A2A 0.3)" }]),
              ...(typeof body.id === "string" || typeof body.id === "number"
                ? []
                : [{ path: ["id"], message: "must be a string or a number: this agent answers every request" }]),
              ...(body.params === undefined || isRecord(body.params) ? [] : [{ path: ["params"], message: "must be an object" }])
            ]
            if (wrong.length > 0) {
              const invalid = invalidParams(wrong)
              return yield* new A2aError({
                kind: "InvalidRequest",
                message: invalid.message.replace(/^Invalid parameters/u, "Invalid request"),
                violations: invalid.violations ?? []
              })
            }
            const method = body.method as string
            if (dialect instanceof A2aError) return yield* dialect
            if (dialect === "0.3") {
              if (!isLegacyMethod(method)) {
                const legacy = isOperation(method) ? LEGACY_NAME[method] : undefined
                return yield* isOperation(method)
                  ? new A2aError({
                      kind: "VersionNotSupported",
                      message: `${method} is A2A 1.0's method: send the header A2A-Version: 1.0 with it. A request without A2A-Version is read as A2A 0.3${legacy === undefined ? ", which has no such method" : `, whose name for it is ${legacy}`}.`
                    })
                  : new A2aError({
                      kind: "MethodNotFound",
                      message: `Method not found: ${method}. This agent answers message/send (A2A 0.3) and SendMessage (A2A 1.0, with the header A2A-Version: 1.0).`
                    })
              }
              const { caster, base } = yield* admit(request)
              return yield* operateLegacy(method, body.params ?? {}, "jsonrpc", base, caster)
            }
            if (!isOperation(method)) {
              // A map, not an object: a method named `toString` or `__proto__` is no inherited property.
              const renamed = RENAMED.get(method)
              return yield* new A2aError({
                kind: "MethodNotFound",
                message:
                  renamed !== undefined
                    ? `Method not found: ${method} is A2A 0.3's name; A2A 1.0 calls it ${renamed} (or send ${method} without the A2A-Version header, as A2A 0.3).`
                    : `Method not found: ${method}. This agent answers SendMessage (A2A 1.0).`
              })
            }
            const { caster, base } = yield* admit(request)
            return yield* operate(method, body.params ?? {}, base, caster)
          })
        )
        if (outcome._tag === "Success") return HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id, result: outcome.success })
        const { status, body } = dialect === "0.3" ? legacyJsonRpcError(outcome.failure, id) : jsonRpcError(outcome.failure, id)
        return HttpServerResponse.jsonUnsafe(body, { status, headers: outcome.failure.headers ?? {} })
      })

    // ---- HTTP+JSON (§11) --------------------------------------------------------------
    /** The operation a method and path under the interface URL name, with the task id it carries. */
    const restOperation = (method: string, path: string): { operation: Operation; id: string } | undefined => {
      if (method === "POST" && path === "/message:send") return { operation: "SendMessage", id: "" }
      if (method === "POST" && path === "/message:stream") return { operation: "SendStreamingMessage", id: "" }
      if (method === "GET" && path === "/extendedAgentCard") return { operation: "GetExtendedAgentCard", id: "" }
      if (method === "GET" && path === "/tasks") return { operation: "ListTasks", id: "" }
      const task = /^\/tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/[^/]+)?)?$/u.exec(path)
      if (task === null) return undefined
      const id = decodeURIComponent(task[1]!)
      const rest = task[2]
      if (rest === undefined) return method === "GET" ? { operation: "GetTask", id } : undefined
      if (rest === ":cancel") return method === "POST" ? { operation: "CancelTask", id } : undefined
      if (rest === ":subscribe") return method === "GET" || method === "POST" ? { operation: "SubscribeToTask", id } : undefined
      return { operation: "CreateTaskPushNotificationConfig", id }
    }

    /** ListTasks over HTTP+JSON takes its parameters in the query: `pageSize` is checked as over JSON-RPC. */
    const listParams = (url: string): Record<string, unknown> => {
      const pageSize = new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : "").get("pageSize")
      return pageSize === null ? {} : { pageSize: /^\d+$/u.test(pageSize) ? Number(pageSize) : pageSize }
    }

    /** A2A 0.3's HTTP+JSON: the paths under /v1 (protocol03.ts), for a 0.3 request. */
    const legacyRest = (request: HttpServerRequest.HttpServerRequest, method: string, path: string) =>
      Effect.gen(function* () {
        const found = legacyRestOperation(method, path.slice("/v1".length))
        if (found === undefined) {
          return yield* new A2aError({
            kind: "MethodNotFound",
            message: `No A2A 0.3 operation is at ${request.method} ${path} here: send messages with POST ${REST_PATH}/v1/message:send.`
          })
        }
        const { caster, base } = yield* admit(request)
        const params = found.operation === "message/send" ? yield* readJson(request) : { id: found.id }
        return yield* operateLegacy(found.operation, params, "rest", base, caster)
      })

    const rest = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const path = (request.url.split("?")[0] ?? "/").slice(REST_PATH.length)
        const dialect = dialectOf(requestedVersion(request.headers, request.url))
        const legacyPath = path === "/v1" || path.startsWith("/v1/")
        const legacy = legacyPath && dialect === "0.3"
        // As on every path: HEAD is GET without the body (Node drops it), and a path served under other
        // methods is a 405 that says which (Allow), not a 404.
        const method = request.method === "HEAD" ? "GET" : request.method
        const operationAt = (m: string) => (legacyPath ? legacyRestOperation(m, path.slice("/v1".length)) : restOperation(m, path))
        if (operationAt(method) === undefined) {
          const allowed = ["GET", "POST"].filter((m) => operationAt(m) !== undefined)
          if (allowed.length > 0) {
            const methods = allowed.includes("GET") ? [...allowed, "HEAD"] : allowed
            return problem(405, `${request.method} is not allowed on ${REST_PATH}${path}; use ${methods.join(" or ")}.`, {
              allow: methods.join(", ")
            })
          }
        }
        const outcome = yield* Effect.result(
          Effect.gen(function* () {
            if (dialect instanceof A2aError) return yield* dialect
            if (legacy) return yield* legacyRest(request, method, path)
            if (legacyPath) {
              return yield* new A2aError({
                kind: "MethodNotFound",
                message: `${request.method} ${path} is an A2A 0.3 path (a request without A2A-Version); with A2A-Version: 1.0 send messages with POST ${REST_PATH}/message:send.`
              })
            }
            const found = restOperation(method, path)
            if (found === undefined) {
              return yield* new A2aError({
                kind: "MethodNotFound",
                message: `No A2A operation is at ${request.method} ${path || "/"} here: send messages with POST ${REST_PATH}/message:send (A2A 1.0) or POST ${REST_PATH}/v1/message:send (A2A 0.3).`
              })
            }
            if (dialect === "0.3") {
              return yield* new A2aError({
                kind: "VersionNotSupported",
                message: `${path} is an A2A 1.0 path: send the header A2A-Version: 1.0 with it. A request without A2A-Version is read as A2A 0.3, whose paths are under ${REST_PATH}/v1 (POST ${REST_PATH}/v1/message:send).`
              })
            }
            const { caster, base } = yield* admit(request)
            const params =
              found.operation === "SendMessage"
                ? yield* readJson(request)
                : found.operation === "ListTasks"
                  ? listParams(request.url)
                  : { id: found.id }
            return yield* operate(found.operation, params, base, caster)
          })
        )
        if (outcome._tag === "Success") {
          // 0.3 answers in application/json, 1.0 in application/a2a+json.
          return HttpServerResponse.jsonUnsafe(outcome.success, { contentType: legacy ? "application/json" : "application/a2a+json" })
        }
        const { status, body } = legacy ? legacyRestError(outcome.failure) : restError(outcome.failure)
        // application/json rather than application/a2a+json: the API's failure guard keeps JSON error bodies as sent (packages/edge/src/problems/problemResponses.ts).
        return HttpServerResponse.jsonUnsafe(body, { status, headers: outcome.failure.headers ?? {} })
      })

    yield* router.add("POST", JSONRPC_PATH, jsonRpc)
    yield* router.add("*", `${REST_PATH}/*`, rest)
    yield* router.add("GET", JWKS_PATH, () => Effect.provideService(cachedJson(signer.jwks), ApiConfig, config))
  })
)

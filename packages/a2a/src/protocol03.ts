/**
 * A2A 0.3 on the wire, for the clients that have not moved to 1.0 (a request
 * without A2A-Version, or with 0.3): JSON-RPC's `message/send` with
 * `kind`-tagged parts and roles `user`/`agent`, and HTTP+JSON's paths under
 * `/v1/` with protobuf JSON bodies (`content`, `{data: {data}}`), as 0.3's
 * reference SDKs send them. A 0.3 request is read into the 1.0 request
 * (protocol.ts) and answered by the same skills; its answer and its errors go
 * back in 0.3's shapes, naming the fields as the client sent them.
 *
 * Of 0.3's other operations, as the card's capabilities say: the task methods
 * find no task, streaming and resubscribing are unsupported, push
 * notifications are not supported, and there is no extended card.
 */
import { Effect, Schema } from "effect"
import { A2aError, invalidParams, type Part, type Reply, type SendMessageRequest, violationsOf } from "./protocol.ts"
import type { PartPaths } from "./skills.ts"

export const LEGACY_METHODS = [
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get",
  "tasks/pushNotificationConfig/list",
  "tasks/pushNotificationConfig/delete",
  "agent/getAuthenticatedExtendedCard"
] as const
export type LegacyMethod = (typeof LEGACY_METHODS)[number]

export const isLegacyMethod = (method: string): method is LegacyMethod => (LEGACY_METHODS as ReadonlyArray<string>).includes(method)

type Path = ReadonlyArray<string | number>
type Violation = { readonly path: Path; readonly message: string }

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
const all = { errors: "all" } as const

const messageId = Schema.String.check(Schema.isMinLength(1, { message: "must not be empty: the sender names each message" }))
const atLeastOnePart = { message: "must hold at least one part: your request in plain words, or a data part naming a skill" }

// ---- JSON-RPC: message/send's MessageSendParams -----------------------------------

const LegacyPart = Schema.Struct({
  kind: Schema.Literals(["text", "data", "file"]).annotate({
    message: 'must be "text", "data" or "file": A2A 0.3 tags each part with its kind'
  }),
  text: Schema.optionalKey(Schema.String),
  data: Schema.optionalKey(Schema.Unknown),
  file: Schema.optionalKey(
    Schema.Struct({
      uri: Schema.optionalKey(Schema.String),
      bytes: Schema.optionalKey(Schema.String),
      mimeType: Schema.optionalKey(Schema.String),
      name: Schema.optionalKey(Schema.String)
    })
  ),
  metadata: Schema.optionalKey(JsonObject)
})

const LegacyMessage = Schema.Struct({
  kind: Schema.optionalKey(Schema.Literal("message").annotate({ message: 'must be "message"' })),
  messageId,
  role: Schema.Literal("user").annotate({ message: 'must be "user": a message to this agent comes from its user' }),
  parts: Schema.Array(LegacyPart).check(Schema.isMinLength(1, atLeastOnePart)),
  contextId: Schema.optionalKey(Schema.String),
  taskId: Schema.optionalKey(Schema.String),
  metadata: Schema.optionalKey(JsonObject),
  extensions: Schema.optionalKey(Schema.Array(Schema.String)),
  referenceTaskIds: Schema.optionalKey(Schema.Array(Schema.String))
})

/** message/send's params (A2A 0.3 §7.1). Fields this agent does not know are ignored. */
const LegacySendParams = Schema.Struct({
  message: LegacyMessage,
  configuration: Schema.optionalKey(
    Schema.Struct({
      acceptedOutputModes: Schema.optionalKey(Schema.Array(Schema.String)),
      blocking: Schema.optionalKey(Schema.Boolean),
      historyLength: Schema.optionalKey(Schema.Number),
      pushNotificationConfig: Schema.optionalKey(Schema.Unknown)
    })
  ),
  metadata: Schema.optionalKey(JsonObject)
})

type LegacyPart = typeof LegacyPart.Type

/** A kind-tagged part as 1.0's part; a part without what its kind names is a wrong field. */
const fromLegacyPart = (part: LegacyPart, i: number): Part | Violation => {
  const at = ["message", "parts", i]
  switch (part.kind) {
    case "text":
      return part.text === undefined ? { path: [...at, "text"], message: 'is required in a part of kind "text"' } : { text: part.text }
    case "data":
      return part.data === undefined ? { path: [...at, "data"], message: 'is required in a part of kind "data"' } : { data: part.data }
    case "file": {
      const file = part.file
      if (file?.uri === undefined && file?.bytes === undefined) {
        return { path: [...at, "file"], message: 'must hold a uri or bytes in a part of kind "file"' }
      }
      return file.uri !== undefined ? { url: file.uri } : { raw: file.bytes! }
    }
  }
}

const isViolation = (value: Part | Violation): value is Violation => "path" in value && "message" in value

/** A 0.3 message, its parts read, as 1.0's SendMessageRequest: what both 0.3 bindings hand the skills. */
const asSendRequest = (
  message: { readonly messageId: string; readonly contextId?: string | undefined; readonly taskId?: string | undefined },
  parts: ReadonlyArray<Part | Violation>,
  configuration: { readonly acceptedOutputModes?: ReadonlyArray<string> | undefined; readonly push?: unknown }
): SendMessageRequest => ({
  message: {
    messageId: message.messageId,
    role: "ROLE_USER",
    parts: parts as ReadonlyArray<Part>,
    ...(message.contextId === undefined ? {} : { contextId: message.contextId }),
    ...(message.taskId === undefined ? {} : { taskId: message.taskId })
  },
  ...(configuration.acceptedOutputModes === undefined && configuration.push === undefined
    ? {}
    : {
        configuration: {
          ...(configuration.acceptedOutputModes === undefined ? {} : { acceptedOutputModes: configuration.acceptedOutputModes }),
          ...(configuration.push === undefined ? {} : { taskPushNotificationConfig: configuration.push })
        }
      })
})

/** A 0.3 JSON-RPC message/send read as the 1.0 request, every wrong field named as sent. */
export const readLegacySend = (params: unknown): Effect.Effect<SendMessageRequest, A2aError> =>
  Effect.gen(function* () {
    const sent = yield* Schema.decodeUnknownEffect(LegacySendParams)(params, all).pipe(
      Effect.mapError((error) => invalidParams(violationsOf(error.issue)))
    )
    const parts = sent.message.parts.map(fromLegacyPart)
    const wrong = parts.filter(isViolation)
    if (wrong.length > 0) return yield* invalidParams(wrong)
    return asSendRequest(sent.message, parts, {
      acceptedOutputModes: sent.configuration?.acceptedOutputModes,
      push: sent.configuration?.pushNotificationConfig
    })
  })

/** The answer as 0.3's JSON-RPC Message (§6.4): `kind`-tagged, from the `agent`. */
export const legacyRpcMessage = (reply: Reply) => ({
  kind: "message",
  messageId: reply.messageId,
  contextId: reply.contextId,
  role: "agent",
  parts: [
    ...(reply.text === undefined ? [] : [{ kind: "text", text: reply.text }]),
    ...(reply.data === undefined ? [] : [{ kind: "data", data: reply.data }])
  ],
  metadata: { skill: reply.skill }
})

// ---- HTTP+JSON: POST /v1/message:send's protobuf JSON --------------------------------

const ProtoPart = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  file: Schema.optionalKey(
    Schema.Struct({
      fileWithUri: Schema.optionalKey(Schema.String),
      fileWithBytes: Schema.optionalKey(Schema.String),
      mimeType: Schema.optionalKey(Schema.String)
    })
  ),
  data: Schema.optionalKey(Schema.Struct({ data: Schema.Unknown })),
  metadata: Schema.optionalKey(JsonObject)
})

const ProtoMessage = Schema.Struct({
  messageId,
  role: Schema.Literal("ROLE_USER").annotate({ message: 'must be "ROLE_USER": a message to this agent comes from its user' }),
  content: Schema.Array(ProtoPart).check(Schema.isMinLength(1, atLeastOnePart)),
  contextId: Schema.optionalKey(Schema.String),
  taskId: Schema.optionalKey(Schema.String),
  metadata: Schema.optionalKey(JsonObject),
  extensions: Schema.optionalKey(Schema.Array(Schema.String))
})

/** SendMessageRequest of 0.3's a2a.proto, in protobuf JSON: the message under `message` (its json_name) or `request`. */
const ProtoSendRequest = Schema.Struct({
  message: Schema.optionalKey(Schema.Unknown),
  request: Schema.optionalKey(Schema.Unknown),
  configuration: Schema.optionalKey(
    Schema.Struct({
      acceptedOutputModes: Schema.optionalKey(Schema.Array(Schema.String)),
      pushNotification: Schema.optionalKey(Schema.Unknown),
      historyLength: Schema.optionalKey(Schema.Number),
      blocking: Schema.optionalKey(Schema.Boolean)
    })
  ),
  metadata: Schema.optionalKey(JsonObject)
})

/** Where the parts of a 0.3 HTTP+JSON message are: `content`, a data part's object one level down. */
export const CONTENT: PartPaths = {
  parts: ["message", "content"],
  part: (i) => ["message", "content", i],
  data: (i) => ["message", "content", i, "data", "data"],
  text: (i) => ["message", "content", i, "text"]
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** A 0.3 HTTP+JSON message:send body read as the 1.0 request, every wrong field named as sent. */
export const readProtoSend = (body: unknown): Effect.Effect<SendMessageRequest, A2aError> =>
  Effect.gen(function* () {
    const sent = yield* Schema.decodeUnknownEffect(ProtoSendRequest)(body, all).pipe(
      Effect.mapError((error) => invalidParams(violationsOf(error.issue)))
    )
    const field = sent.message !== undefined ? "message" : "request"
    const raw = sent.message ?? sent.request
    if (raw === undefined) return yield* invalidParams([{ path: ["message"], message: "is required: the message to this agent" }])
    // A JSON-RPC body sent here: say which form this binding takes rather than only that content is missing.
    if (isRecord(raw) && raw.content === undefined && Array.isArray(raw.parts)) {
      return yield* invalidParams([
        {
          path: [field, "content"],
          message:
            'is required: A2A 0.3\'s HTTP+JSON takes the protobuf JSON form (content: [{"text": …} or {"data": {"data": {…}}}], role "ROLE_USER"); kind-tagged parts are JSON-RPC\'s (message/send)'
        }
      ])
    }
    const message = yield* Schema.decodeUnknownEffect(ProtoMessage)(raw, all).pipe(
      Effect.mapError((error) => invalidParams(violationsOf(error.issue, [field])))
    )
    const parts = message.content.map((part, i): Part | Violation => {
      if (part.text !== undefined) return { text: part.text }
      if (part.data !== undefined) return { data: part.data.data }
      if (part.file?.fileWithUri !== undefined) return { url: part.file.fileWithUri }
      if (part.file?.fileWithBytes !== undefined) return { raw: part.file.fileWithBytes }
      return { path: [field, "content", i], message: "must hold text, data or file" }
    })
    const wrong = parts.filter(isViolation)
    if (wrong.length > 0) return yield* invalidParams(wrong)
    return asSendRequest(message, parts, {
      acceptedOutputModes: sent.configuration?.acceptedOutputModes,
      push: sent.configuration?.pushNotification
    })
  })

/** The answer as 0.3's SendMessageResponse in protobuf JSON: the message under `message`, its parts under `content`. */
export const protoSendResponse = (reply: Reply) => ({
  message: {
    messageId: reply.messageId,
    contextId: reply.contextId,
    role: "ROLE_AGENT",
    content: [
      ...(reply.text === undefined ? [] : [{ text: reply.text }]),
      ...(reply.data === undefined ? [] : [{ data: { data: reply.data } }])
    ],
    metadata: { skill: reply.skill }
  }
})

/** The 0.3 operation a method and path under `/v1` name (0.3's google.api.http paths), with the task id it carries. */
export const legacyRestOperation = (method: string, path: string): { operation: LegacyMethod; id: string } | undefined => {
  if (method === "POST" && path === "/message:send") return { operation: "message/send", id: "" }
  if (method === "POST" && path === "/message:stream") return { operation: "message/stream", id: "" }
  if (method === "GET" && path === "/card") return { operation: "agent/getAuthenticatedExtendedCard", id: "" }
  const task = /^\/tasks\/([^/:]+)(:cancel|:subscribe|\/pushNotificationConfigs(?:\/[^/]+)?)?$/u.exec(path)
  if (task === null) return undefined
  const id = decodeURIComponent(task[1]!)
  const rest = task[2]
  if (rest === undefined) return method === "GET" ? { operation: "tasks/get", id } : undefined
  if (rest === ":cancel") return method === "POST" ? { operation: "tasks/cancel", id } : undefined
  if (rest === ":subscribe") return method === "GET" || method === "POST" ? { operation: "tasks/resubscribe", id } : undefined
  return { operation: "tasks/pushNotificationConfig/set", id }
}

// ---- 0.3's refusals, in 0.3's names --------------------------------------------------

export const legacyNoStreaming = new A2aError({
  kind: "UnsupportedOperation",
  message: "This agent does not stream (capabilities.streaming is false): send the message with message/send (POST /v1/message:send)."
})

export const legacyNoExtendedCard = new A2aError({
  kind: "ExtendedCardNotConfigured",
  message:
    "This agent has no authenticated extended card (supportsAuthenticatedExtendedCard is false): its card at /.well-known/agent-card.json is the whole of it."
})

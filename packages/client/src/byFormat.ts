/**
 * Reads typed by their `format`. The contract declares `GET /entities/{slug}` with one
 * success of two shapes (the agent view or the detail record), so the generated method
 * returns their union whatever the request asks for, and `view.problems` does not compile
 * even with `format: "agent"`. Here the method is overloaded on the format, and the answer
 * is checked against the shape asked for, so the narrower type is never a guess.
 */
import { Effect, Schema, SchemaIssue } from "effect"
import type { HttpApiClient } from "effect/http-api"
import type { Api } from "@productdir/contract"
import { AgentView, ProductRecord } from "@productdir/domain"

type GeneratedEntities = HttpApiClient.ForApi<typeof Api>["entities"]
type GeneratedGetEntity = GeneratedEntities["getEntity"]
type GeneratedRead = ReturnType<GeneratedGetEntity>
type Mode = HttpApiClient.Client.ResponseMode
type Slug = Exclude<Parameters<GeneratedGetEntity>[0], void>["params"]["slug"]

/** A request for one product in the given format (`undefined`: the parameter left out). */
export interface EntityRequest<Format extends "json" | "agent" | undefined, M extends Mode = "decoded-only"> {
  readonly params: { readonly slug: Slug }
  readonly query: undefined extends Format ? { readonly format?: Exclude<Format, undefined> } : { readonly format: Format }
  readonly responseMode?: M
}

type Read<A, M extends Mode> = Effect.Effect<
  HttpApiClient.Client.Response<A, M>,
  Effect.Error<GeneratedRead>,
  Effect.Services<GeneratedRead>
>

/** `GET /entities/{slug}`: the agent view with `format: "agent"`, else the detail record. */
export interface GetEntity {
  <M extends Mode = "decoded-only">(request: EntityRequest<"agent", M>): Read<AgentView, M>
  <M extends Mode = "decoded-only">(request: EntityRequest<"json" | undefined, M>): Read<ProductRecord, M>
  /** A format only known at run time: either shape. */
  <M extends Mode = "decoded-only">(request: EntityRequest<"json" | "agent" | undefined, M>): Read<AgentView | ProductRecord, M>
}

/** The `entities` group of the client, its reads typed by format. */
export type EntityReads = Omit<GeneratedEntities, "getEntity"> & { readonly getEntity: GetEntity }

const isAgentView = Schema.is(AgentView)
const isProductRecord = Schema.is(ProductRecord)

/** The decoded value of a result in any response mode but "response-only". */
const decodedOf = (result: unknown): unknown => (Array.isArray(result) ? result[0] : result)

export const byFormat = (entities: GeneratedEntities): EntityReads => {
  const getEntity = (request: EntityRequest<"json" | "agent" | undefined, Mode>) => {
    const read: GeneratedRead = entities.getEntity(request)
    if (request.responseMode === "response-only") return read
    const agent = request.query.format === "agent"
    return Effect.flatMap(read, (result) =>
      (agent ? isAgentView : isProductRecord)(decodedOf(result))
        ? Effect.succeed(result)
        : Effect.fail(
            new Schema.SchemaError(
              new SchemaIssue.InvalidValue(
                { message: `the server did not answer with ${agent ? "the agent view" : "the detail record"} asked for` },
                decodedOf(result)
              )
            )
          )
    )
  }
  // One implementation behind the overloads: each overload's type is what the check above guarantees.
  return { ...entities, getEntity: getEntity as GetEntity }
}

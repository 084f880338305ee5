/**
 * What operators do with agents (productdir-agents, docs/operations.md, "Agents"): list them with
 * what they cast, look at one, revoke one (its votes stay in the ledger, marked, and stop counting;
 * its products are recounted at once) and restore it. Every process's reads show the recount within
 * a second (the change feed); a revoked key is refused from its next proof on.
 */
import { Context, Effect, Layer, Option, Stream } from "effect"
import { type AgentId, type AgentNotFound, type AgentRecord, AgentRegistry, type StandingChange, type StoreError } from "@productdir/domain"

/** Agents read per page while listing. */
const PAGE = 500

export class AgentAdministration extends Context.Service<
  AgentAdministration,
  {
    /** Every agent, oldest first. */
    readonly list: Stream.Stream<AgentRecord, StoreError>
    readonly find: (id: AgentId) => Effect.Effect<AgentRecord, AgentNotFound | StoreError>
    readonly revoke: (id: AgentId) => Effect.Effect<StandingChange, AgentNotFound | StoreError>
    readonly restore: (id: AgentId) => Effect.Effect<StandingChange, AgentNotFound | StoreError>
  }
>()("@productdir/usecases/AgentAdministration") {}

export const layer = Layer.effect(
  AgentAdministration,
  Effect.gen(function* () {
    const registry = yield* AgentRegistry
    const list = Stream.paginate(undefined as AgentId | undefined, (after) =>
      Effect.map(registry.list({ limit: PAGE, ...(after === undefined ? {} : { after }) }), (page) => {
        const last = page.at(-1)
        return [page, page.length === PAGE && last !== undefined ? Option.some(last.id) : Option.none()] as const
      })
    )
    return AgentAdministration.of({ list, find: registry.find, revoke: registry.revoke, restore: registry.restore })
  })
)

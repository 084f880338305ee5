/**
 * What operators do with the voter groups the integrity pass finds (productdir-agents groups,
 * docs/operations.md, "Voter groups"): list them with their evidence, look at one, confirm it (its
 * votes stay discounted, its members lose standing) or clear it (its votes count again, and no later
 * pass discounts them). Both recount the group's products at once; every API process serves the
 * recount within a second (the change feed).
 */
import { Clock, Context, Effect, Layer } from "effect"
import { type GroupDecision, GroupNotFound, type GroupStatus, IntegrityLedger, type StoreError, type VoteGroup } from "@productdir/domain"

export class GroupReview extends Context.Service<
  GroupReview,
  {
    /** Groups newest first; only those with one of `statuses` when given. */
    readonly list: (statuses?: ReadonlyArray<GroupStatus>) => Effect.Effect<ReadonlyArray<VoteGroup>, StoreError>
    readonly find: (id: string) => Effect.Effect<VoteGroup, GroupNotFound | StoreError>
    readonly decide: (id: string, status: "confirmed" | "cleared") => Effect.Effect<GroupDecision, GroupNotFound | StoreError>
  }
>()("@productdir/usecases/GroupReview") {}

export const layer = Layer.effect(
  GroupReview,
  Effect.gen(function* () {
    const ledger = yield* IntegrityLedger
    const list = (statuses?: ReadonlyArray<GroupStatus>) =>
      Effect.map(ledger.groups, (groups) => (statuses === undefined ? groups : groups.filter((g) => statuses.includes(g.status))))
    const find = (id: string) =>
      Effect.flatMap(ledger.groups, (groups) => {
        const group = groups.find((g) => g.id === id.toLowerCase())
        return group === undefined ? Effect.fail(new GroupNotFound({ id })) : Effect.succeed(group)
      })
    const decide = (id: string, status: "confirmed" | "cleared") =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => ledger.decide(id.toLowerCase(), status, new Date(now)))
    return GroupReview.of({ list, find, decide })
  })
)

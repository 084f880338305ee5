/**
 * What operators do with the voter groups the integrity pass finds (productdir-agents groups,
 * docs/operations.md, "Voter groups"): list them with their evidence, look at one, confirm it (its
 * votes stay discounted, its members lose standing) or clear it (its votes count again, and no later
 * pass discounts them). Both recount the group's products at once; every API process serves the
 * recount within a second (the change feed). And why a product's held votes are held (`held`: its trust's
 * formation, as its agent view gives it).
 */
import { Clock, Context, Effect, Layer } from "effect"
import {
  CatalogStore,
  type GroupDecision,
  GroupNotFound,
  type GroupStatus,
  IntegrityLedger,
  type Product,
  type ProductNotFound,
  type ProductRemoved,
  type StoreError,
  toTrustFormation,
  type TrustFormation,
  VoteLedger,
  type VoteGroup
} from "@productdir/domain"

export class GroupReview extends Context.Service<
  GroupReview,
  {
    /** Groups newest first; only those with one of `statuses` when given. */
    readonly list: (statuses?: ReadonlyArray<GroupStatus>) => Effect.Effect<ReadonlyArray<VoteGroup>, StoreError>
    readonly find: (id: string) => Effect.Effect<VoteGroup, GroupNotFound | StoreError>
    readonly decide: (id: string, status: "confirmed" | "cleared") => Effect.Effect<GroupDecision, GroupNotFound | StoreError>
    /** A product (by id or slug) and how its trust was formed: the counted votes by weight, the held ones by why. */
    readonly held: (
      ref: string
    ) => Effect.Effect<{ readonly product: Product; readonly formation: TrustFormation }, ProductNotFound | ProductRemoved | StoreError>
  }
>()("@productdir/usecases/GroupReview") {}

export const layer = Layer.effect(
  GroupReview,
  Effect.gen(function* () {
    const ledger = yield* IntegrityLedger
    const votes = yield* VoteLedger
    const catalog = yield* CatalogStore
    const list = (statuses?: ReadonlyArray<GroupStatus>) =>
      Effect.map(ledger.groups, (groups) => (statuses === undefined ? groups : groups.filter((g) => statuses.includes(g.status))))
    const find = (id: string) =>
      Effect.flatMap(ledger.groups, (groups) => {
        const group = groups.find((g) => g.id === id.toLowerCase())
        return group === undefined ? Effect.fail(new GroupNotFound({ id })) : Effect.succeed(group)
      })
    const decide = (id: string, status: "confirmed" | "cleared") =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => ledger.decide(id.toLowerCase(), status, new Date(now)))
    const held = (ref: string) =>
      Effect.gen(function* () {
        const product = yield* catalog.find(ref)
        return { product, formation: toTrustFormation(product.seed, yield* votes.formation(product.id)) }
      })
    return GroupReview.of({ list, find, decide, held })
  })
)

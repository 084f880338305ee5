/**
 * The operators' side of publishers (productdir-publishers): every claim and publisher, one with its audit trail,
 * a suspension or a restoration with its reason, and the audit trail itself. Each action is written to the trail.
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import {
  type AuditEntry,
  AuditTrail,
  CatalogStore,
  canonicalRef,
  type ProductId,
  type ProductNotFound,
  productSubject,
  type Publisher,
  type PublisherId,
  PublisherStore,
  publisherSubject,
  type StoreError
} from "@productdir/domain"
import { PublisherNotFound } from "./Publishing.ts"

/** A suspension of a publisher that is not verified, or a restoration of one that is not suspended. */
export class StatusUnchanged extends Schema.TaggedError<StatusUnchanged>()("StatusUnchanged", {
  domain: Schema.String,
  status: Schema.String,
  wanted: Schema.String
}) {
  override get message() {
    return this.wanted === "verified" && this.status === "suspended"
      ? `The publisher of ${this.domain} cannot be restored: its domain has another verified publisher now`
      : `The publisher of ${this.domain} is ${this.status}: only a ${this.wanted === "suspended" ? "verified" : "suspended"} one can be ${this.wanted === "suspended" ? "suspended" : "restored"}`
  }
}

/** A takedown of a product that is removed already, or a bringing back of one that is live. */
export class ProductUnchanged extends Schema.TaggedError<ProductUnchanged>()("ProductUnchanged", {
  id: Schema.String,
  live: Schema.Boolean
}) {
  override get message() {
    return this.live ? `Product ${this.id} is live: there is nothing to bring back` : `Product ${this.id} is removed already`
  }
}

export class PublisherAdministration extends Context.Service<
  PublisherAdministration,
  {
    readonly list: Effect.Effect<ReadonlyArray<Publisher>, StoreError>
    /** One publisher, with its latest audit entries. */
    readonly show: (
      id: PublisherId
    ) => Effect.Effect<{ readonly publisher: Publisher; readonly audit: ReadonlyArray<AuditEntry> }, PublisherNotFound | StoreError>
    readonly suspend: (id: PublisherId, reason: string) => Effect.Effect<Publisher, PublisherNotFound | StatusUnchanged | StoreError>
    readonly restore: (id: PublisherId, reason: string) => Effect.Effect<Publisher, PublisherNotFound | StatusUnchanged | StoreError>
    readonly audit: (subject: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreError>
    /** An operator's takedown of any product (by id or slug): 410 with the reason, on every process within a second. */
    readonly takeDown: (ref: string, reason: string) => Effect.Effect<ProductId, ProductNotFound | ProductUnchanged | StoreError>
    /** Undoes a takedown: the product is live again as it was. */
    readonly bringBack: (ref: string, reason: string) => Effect.Effect<ProductId, ProductNotFound | ProductUnchanged | StoreError>
  }
>()("@productdir/usecases/PublisherAdministration") {}

export const layer = Layer.effect(
  PublisherAdministration,
  Effect.gen(function* () {
    const store = yield* PublisherStore
    const trail = yield* AuditTrail
    const catalog = yield* CatalogStore
    /** A product's id by its id or slug, live or removed. */
    const productId = (ref: string) =>
      catalog.find(canonicalRef(ref)).pipe(
        Effect.map((product) => product.id),
        Effect.catchTag("ProductRemoved", (removed) => Effect.succeed(removed.id as ProductId))
      )
    const productChange = (action: "take-down" | "bring-back") =>
      Effect.fn(`PublisherAdministration.${action}`)(function* (ref: string, reason: string) {
        const id = yield* productId(ref)
        const changed = action === "take-down" ? yield* catalog.takeDown(id, reason) : yield* catalog.bringBack(id)
        if (!changed) return yield* new ProductUnchanged({ id, live: action === "bring-back" })
        yield* trail.record({
          at: new Date(yield* Clock.currentTimeMillis),
          actor: { kind: "operator" },
          action,
          subject: productSubject(id),
          reason,
          detail: action === "take-down" ? `${ref}: taken down (410 with the reason)` : `${ref}: live again`
        })
        return id
      })
    const found = (id: PublisherId) =>
      Effect.flatMap(store.find(id), Option.match({ onNone: () => Effect.fail(new PublisherNotFound({ id })), onSome: Effect.succeed }))

    const change = (to: "verified" | "suspended") =>
      Effect.fn(`PublisherAdministration.${to === "suspended" ? "suspend" : "restore"}`)(function* (id: PublisherId, reason: string) {
        const before = yield* found(id)
        const at = new Date(yield* Clock.currentTimeMillis)
        const note = `${to === "suspended" ? "suspended" : "restored"} by an operator: ${reason}`
        const after = Option.getOrUndefined(yield* store.setStatus(id, { to, at, note }))
        if (after === undefined) return yield* new StatusUnchanged({ domain: before.domain, status: before.status, wanted: to })
        yield* trail.record({
          at,
          actor: { kind: "operator" },
          action: to === "suspended" ? "suspend" : "restore",
          subject: publisherSubject(id),
          reason,
          detail: `${before.domain}: ${before.status} → ${after.status}`
        })
        return after
      })

    return PublisherAdministration.of({
      list: store.list,
      show: (id) =>
        Effect.flatMap(found(id), (publisher) =>
          Effect.map(trail.list({ subject: publisherSubject(id), limit: 20 }), (audit) => ({ publisher, audit }))
        ),
      suspend: change("suspended"),
      restore: change("verified"),
      audit: (subject, limit) => trail.list({ subject, limit }),
      takeDown: productChange("take-down"),
      bringBack: productChange("bring-back")
    })
  })
)

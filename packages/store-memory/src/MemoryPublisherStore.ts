/** PublisherStore over the in-memory state. */
import { Effect, Layer, Option } from "effect"
import { type Publisher, PublisherStore } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const verifiedFor = (state: State, domain: string) =>
  Option.fromNullishOr([...state.publishers.values()].find((p) => p.domain === domain && p.status === "verified"))

const make = (state: State) =>
  PublisherStore.of({
    claim: (publisher) =>
      Effect.sync(() => {
        state.publishers.set(publisher.id, publisher)
        return publisher
      }),
    find: (id) => Effect.sync(() => Option.fromNullishOr(state.publishers.get(id))),
    verifiedFor: (domain) => Effect.sync(() => verifiedFor(state, domain)),
    verify: (id, proof) =>
      Effect.sync(() => {
        const claim = state.publishers.get(id)
        if (claim === undefined || claim.status !== "pending" || Option.isSome(verifiedFor(state, claim.domain))) return Option.none()
        const verified: Publisher = { ...claim, status: "verified", method: proof.method, keyHash: proof.keyHash, verifiedAt: proof.at }
        state.publishers.set(id, verified)
        return Option.some(verified)
      }),
    due: (before, limit) =>
      Effect.sync(() =>
        [...state.publishers.values()]
          .filter((p) => p.status === "verified" && (p.checkedAt ?? p.verifiedAt ?? p.createdAt) < before)
          .sort(
            (a, b) =>
              (a.checkedAt ?? a.verifiedAt ?? a.createdAt).getTime() - (b.checkedAt ?? b.verifiedAt ?? b.createdAt).getTime() ||
              (a.id < b.id ? -1 : 1)
          )
          .slice(0, limit)
      ),
    recordCheck: (id, check) =>
      Effect.sync(() => {
        const publisher = state.publishers.get(id)
        if (publisher === undefined || publisher.status !== "verified") return Option.none()
        const failedChecks = check.note === null ? 0 : publisher.failedChecks + 1
        const suspended = failedChecks >= check.suspendAfter
        const next: Publisher = {
          ...publisher,
          failedChecks,
          checkedAt: check.at,
          checkNote: check.note,
          status: suspended ? "suspended" : "verified",
          suspendedAt: suspended ? check.at : null
        }
        state.publishers.set(id, next)
        return Option.some(next)
      }),
    list: Effect.sync(() =>
      [...state.publishers.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
    ),
    setStatus: (id, change) =>
      Effect.sync(() => {
        const publisher = state.publishers.get(id)
        const from = change.to === "suspended" ? "verified" : "suspended"
        if (publisher === undefined || publisher.status !== from) return Option.none()
        if (change.to === "verified" && Option.isSome(verifiedFor(state, publisher.domain))) return Option.none()
        const next: Publisher = {
          ...publisher,
          status: change.to,
          checkNote: change.note,
          suspendedAt: change.to === "suspended" ? change.at : null,
          failedChecks: change.to === "verified" ? 0 : publisher.failedChecks
        }
        state.publishers.set(id, next)
        return Option.some(next)
      }),
    byKeyHash: (keyHash) =>
      Effect.sync(() => Option.fromNullishOr([...state.publishers.values()].find((p) => p.keyHash === keyHash && p.status === "verified")))
  })

export const layer = Layer.effect(PublisherStore, MemoryState.useSync(make))

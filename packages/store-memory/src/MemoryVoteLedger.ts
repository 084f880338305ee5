/** VoteLedger over the in-memory state: one synchronous step per vote, so concurrent votes count exactly. */
import { Clock, Effect, Layer, Option, Result, Stream } from "effect"
import {
  addTally,
  AgentRevoked,
  canonicalProductId,
  castAfterTaking,
  type CastResult,
  type CastVote,
  type CounterSnapshot,
  expectedCounters,
  hasDrifted,
  ledgerKey,
  normalizeReason,
  type ProductId,
  type ProductNotFound,
  type ProductRemoved,
  RateLimits,
  type Repair,
  tidyReason,
  VoteLedger,
  voteTransition
} from "@productdir/domain"
import { announce, findLive, type LedgerVote, ledgerTally, MemoryState, type Report, type State } from "./State.ts"

const castOne = (state: State, vote: CastVote, now: Date): Result.Result<CastResult, ProductNotFound | ProductRemoved | AgentRevoked> => {
  if (vote.voter._tag === "Agent") {
    const agent = state.agents.get(vote.voter.agentId)
    if (agent === undefined || agent.agent.revokedAt !== null) return Result.fail(new AgentRevoked({ id: vote.voter.agentId }))
  }
  const found = findLive(state, vote.entity)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const product = found.success
  const ballots = state.votes.get(product.id) ?? new Map<string, LedgerVote>()
  state.votes.set(product.id, ballots)
  const voter = ledgerKey(vote.voter)
  const previous = ballots.get(voter)
  const { delta, status } = voteTransition(previous?.direction, vote.direction)
  if (previous === undefined) ballots.set(voter, { direction: vote.direction, createdAt: now, updatedAt: now, revokedAt: null })
  else if (status === "changed") Object.assign(previous, { direction: vote.direction, updatedAt: now })
  const counters = addTally(product.counters, delta)
  const updated = { ...product, counters }
  state.products.set(product.id, updated)
  const reported = recordReport(state, product.id, vote, now)
  if (status !== "unchanged" || reported) announce(state, [product.id])
  return Result.succeed({ productId: updated.id, direction: vote.direction, status, counters })
}

/**
 * A down vote with a reason reports a problem; moving to up withdraws the voter's reports on that product.
 * True when the reports changed.
 */
const recordReport = (state: State, id: ProductId, vote: CastVote, now: Date): boolean => {
  const byKey = state.reports.get(id) ?? new Map<string, Map<string, Report>>()
  state.reports.set(id, byKey)
  const voter = ledgerKey(vote.voter)
  if (vote.direction === "up") {
    let withdrawn = false
    for (const voters of byKey.values()) withdrawn = voters.delete(voter) || withdrawn
    return withdrawn
  }
  if (vote.reason === undefined) return false
  const key = normalizeReason(vote.reason)
  const voters = byKey.get(key) ?? new Map<string, Report>()
  byKey.set(key, voters)
  if (voters.has(voter)) return false
  voters.set(voter, { summary: tidyReason(vote.reason), at: now, revokedAt: null })
  return true
}

const make = (state: State, limits: RateLimits["Service"]) => {
  const cast = (vote: CastVote) =>
    Effect.flatMap(Clock.currentTimeMillis, (millis) => Effect.fromResult(castOne(state, vote, new Date(millis))))
  return VoteLedger.of({
    cast,
    castWithin: castAfterTaking(limits, cast),
    snapshots: (batchSize) =>
      Stream.paginate(undefined as string | undefined, (after) =>
        Effect.sync(() => {
          const page = [...state.products.values()]
            .filter((p) => after === undefined || p.id > after)
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .slice(0, batchSize)
            .map((p): CounterSnapshot => ({ id: p.id, seed: p.seed, stored: p.counters, ledger: ledgerTally(state, p.id) }))
          const last = page.at(-1)
          return [[page], page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
        })
      ).pipe(Stream.filter((page) => page.length > 0)),
    repair: (drifted) =>
      Effect.sync(() => {
        // One synchronous step: nothing can move between the check and the write.
        const repairs: Array<Repair> = []
        for (const snapshot of drifted) {
          const product = state.products.get(canonicalProductId(snapshot.id))
          if (product === undefined) continue
          const current = { id: product.id, seed: product.seed, stored: product.counters, ledger: ledgerTally(state, product.id) }
          if (!hasDrifted(current)) continue
          const after = expectedCounters(current)
          state.products.set(product.id, { ...product, counters: after })
          repairs.push({ id: product.id, before: product.counters, after })
        }
        announce(
          state,
          repairs.map((r) => r.id)
        )
        return repairs
      })
  })
}

/** Needs the store's RateLimits: castWithin takes from the same buckets. */
export const layer = Layer.effect(
  VoteLedger,
  Effect.gen(function* () {
    return make(yield* MemoryState, yield* RateLimits)
  })
)

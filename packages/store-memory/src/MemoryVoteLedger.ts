/** VoteLedger over the in-memory state: one synchronous step per vote, so concurrent votes count exactly. */
import { Clock, Effect, Layer, Option, Result, Stream } from "effect"
import {
  addTally,
  AgentRevoked,
  canonicalProductId,
  castAfterTaking,
  type CastResult,
  decayedRates,
  decide,
  isAgentLedgerKey,
  heldReason,
  holdsVote,
  isReversal,
  type LedgerFormation,
  noRates,
  ratesAfterVote,
  type VoteCounting,
  type CastVote,
  type CounterSnapshot,
  ledgerKey,
  normalizeReason,
  type ProductId,
  type Repair,
  type ProductNotFound,
  type ProductRemoved,
  RateLimits,
  type StoreError,
  type LimitedCast,
  tidyReason,
  VoteLedger,
  voterClassOf,
  voteTransition,
  voteWeight,
  type VoteDirection,
  type VoteStatus,
  type Tally
} from "@productdir/domain"
import {
  announce,
  findLive,
  type LedgerVote,
  ledgerTally,
  ledgerWeights,
  MemoryState,
  recountProducts,
  type Report,
  resolve,
  type State
} from "./State.ts"

type CastFailure = ProductNotFound | ProductRemoved | AgentRevoked | StoreError

const castOne = (state: State, vote: CastVote, now: Date): Result.Result<CastResult, ProductNotFound | ProductRemoved | AgentRevoked> => {
  let standing = false
  if (vote.voter._tag === "Agent") {
    const agent = state.agents.get(vote.voter.agentId)
    if (agent === undefined || agent.agent.revokedAt !== null) return Result.fail(new AgentRevoked({ id: vote.voter.agentId }))
    standing = agent.agent.standingSince !== null
  }
  const found = findLive(state, vote.entity)
  if (Result.isFailure(found)) return Result.fail(found.failure)
  const product = found.success
  const ballots = state.votes.get(product.id) ?? new Map<string, LedgerVote>()
  state.votes.set(product.id, ballots)
  const voter = ledgerKey(vote.voter)
  const previous = ballots.get(voter)
  const { delta, status } = voteTransition(previous?.direction, vote.direction)
  const previousWeight = previous?.weight ?? 0
  // What it weighs: its voter's standing now (domain judgement.ts); a changed vote is weighed anew.
  const weight = voteWeight(voterClassOf(vote.voter, standing))
  // How it counts (voteCounting.ts): a changed vote as its first one did; a new one held in a burst, without standing
  // or reversing what the product's evidence settled.
  let counting: VoteCounting = previous?.counting ?? "counted"
  if (previous === undefined) {
    const rates = decayedRates(state.rates.get(product.id) ?? noRates, now.getTime())
    const guard = vote.guard
    const held = guard !== undefined && holdsVote(rates, guard, { standing, reversal: isReversal(product.weighted, vote.direction, guard) })
    counting = held ? "held" : "counted"
    state.rates.set(product.id, ratesAfterVote(rates, counting === "held"))
    ballots.set(voter, {
      direction: vote.direction,
      createdAt: now,
      updatedAt: now,
      revokedAt: null,
      counting,
      network: vote.network ?? null,
      groupId: null,
      weight
    })
  } else if (status === "changed") Object.assign(previous, { direction: vote.direction, updatedAt: now, weight })
  // Only a counted vote moves the counters and the evidence: a changed vote's old weight leaves with its old direction.
  const moves = counting === "counted"
  const counters = moves ? addTally(product.counters, delta) : product.counters
  const weighted = moves ? addTally(product.weighted, weightDelta(status, vote.direction, weight, previousWeight)) : product.weighted
  const updated = { ...product, counters, weighted }
  state.products.set(product.id, updated)
  const reported = recordReport(state, product.id, vote, now)
  if (status !== "unchanged" || reported) announce(state, [product.id])
  return Result.succeed({ productId: updated.id, direction: vote.direction, status, counting, counters, weighted, weight })
}

/** How a vote moves its product's weighted evidence (as voteTransition moves the counts). */
const weightDelta = (status: VoteStatus, direction: VoteDirection, weight: number, previous: number): Tally => {
  if (status === "unchanged") return { up: 0, down: 0 }
  const gone = status === "changed" ? previous : 0
  return direction === "up" ? { up: weight, down: -gone } : { up: -gone, down: weight }
}

/**
 * A down vote with a reason reports a problem, replacing the one the voter reported before (a vote carries
 * one reason); moving to up withdraws the voter's report on that product. True when the reports changed.
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
  for (const [other, reporters] of byKey) if (other !== key) reporters.delete(voter)
  voters.set(voter, { summary: tidyReason(vote.reason), at: now, revokedAt: null, network: vote.network ?? null })
  return true
}

/** Whether the vote would record or change something: what makes it draw on its budgets. */
const wouldChange = (state: State, vote: CastVote): boolean => {
  const product = resolve(state, vote.entity)
  const previous = product === undefined ? undefined : state.votes.get(product.id)?.get(ledgerKey(vote.voter))
  return previous?.direction !== vote.direction
}

const make = (state: State, limits: RateLimits["Service"]) => {
  const cast = (vote: CastVote) =>
    Effect.flatMap(Clock.currentTimeMillis, (millis) => Effect.fromResult(castOne(state, vote, new Date(millis))))
  const castBudgeted = (vote: CastVote): Effect.Effect<LimitedCast, CastFailure> =>
    Effect.gen(function* () {
      const budgets = vote.budgets ?? []
      const drawn = budgets.length > 0 && wouldChange(state, vote) ? yield* limits.take(budgets) : decide([])
      if (drawn._tag === "Limited") return { _tag: "Limited", decision: drawn } as const
      return { _tag: "Cast", decision: drawn, result: yield* cast(vote) } as const
    })
  return VoteLedger.of({
    cast,
    castWithin: castAfterTaking(limits, castBudgeted),
    snapshots: (batchSize) =>
      Stream.paginate(undefined as string | undefined, (after) =>
        Effect.sync(() => {
          const page = [...state.products.values()]
            .filter((p) => after === undefined || p.id > after)
            .sort((a, b) => (a.id < b.id ? -1 : 1))
            .slice(0, batchSize)
            .map(
              (p): CounterSnapshot => ({
                id: p.id,
                seed: p.seed,
                stored: p.counters,
                ledger: ledgerTally(state, p.id),
                storedWeighted: p.weighted,
                ledgerWeighted: ledgerWeights(state, p.id)
              })
            )
          const last = page.at(-1)
          return [[page], page.length === batchSize && last ? Option.some(last.id) : Option.none()] as const
        })
      ).pipe(Stream.filter((page) => page.length > 0)),
    formation: (id) =>
      Effect.sync((): LedgerFormation => {
        const formation = { agents: { up: 0, down: 0 }, addresses: { up: 0, down: 0 }, held: 0, discounted: 0 }
        const heldBy = { waiting: 0, anonymous: 0, reversal: 0, group: 0 }
        const byWeight = new Map<number, { up: number; down: number }>()
        for (const [voter, entry] of state.votes.get(canonicalProductId(id)) ?? []) {
          if (entry.revokedAt !== null) continue
          if (entry.counting === "held") {
            formation.held++
            heldBy[heldReason(entry.groupId !== null, isAgentLedgerKey(voter), entry.weight)]++
          } else if (entry.counting === "discounted") formation.discounted++
          else {
            formation[isAgentLedgerKey(voter) ? "agents" : "addresses"][entry.direction]++
            const weighed = byWeight.get(entry.weight) ?? { up: 0, down: 0 }
            weighed[entry.direction]++
            byWeight.set(entry.weight, weighed)
          }
        }
        const heaviestFirst = [...byWeight].sort((a, b) => b[0] - a[0])
        return { ...formation, heldBy, byWeight: heaviestFirst.map(([weight, tally]) => ({ weight, ...tally })) }
      }),
    repair: (drifted) =>
      Effect.sync(() => {
        // One synchronous step: nothing can move between the check and the write.
        const drift = drifted
          .map((snapshot) => state.products.get(canonicalProductId(snapshot.id)))
          .filter((product) => product !== undefined)
          .map((product) => product.id)
        return recountProducts(state, drift).map((r): Repair => ({ ...r, id: r.id as ProductId }))
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

/**
 * IntegrityLedger over the in-memory state: the window as columns, the verdict applied in one
 * synchronous step (nothing moves between the discount and the recount), the groups kept in memory.
 */
import { Effect, Layer } from "effect"
import {
  agentLedgerKey,
  COUNTED,
  DISCOUNTED,
  discounts,
  type GroupDecision,
  GroupNotFound,
  HELD,
  IntegrityLedger,
  type LedgerWindow,
  noRates,
  type ProductId,
  type Recount,
  ratesAfterRelease,
  runsOf,
  type Settled,
  type StandingRule,
  type VoteGroup
} from "@productdir/domain"
import { announce, MemoryState, recountProducts, type State } from "./State.ts"

const COUNTING_CODE = { counted: COUNTED, held: HELD, discounted: DISCOUNTED } as const

/** Counters and weighted evidence set to seed + counted votes for `ids`; the ones that moved. */
const recount = (state: State, ids: Iterable<string>): Array<Recount> => recountProducts(state, ids)

const clearedGroup = (state: State, groupId: string | null) => groupId !== null && state.groups.get(groupId)?.status === "cleared"

const make = (state: State) =>
  IntegrityLedger.of({
    window: (since) =>
      Effect.sync((): LedgerWindow => {
        const rows: Array<{
          product: string
          voter: string
          network: string | null
          at: number
          counting: number
          up: boolean
          cleared: boolean
        }> = []
        for (const [product, ballots] of state.votes) {
          for (const [voter, vote] of ballots) {
            if (vote.revokedAt !== null) continue
            if (vote.updatedAt < since && vote.counting !== "held") continue
            rows.push({
              product,
              voter,
              network: vote.network,
              // When it was cast, not when it last changed (as the SQL window: windowOfRecentVotes.ts).
              at: (vote.counting === "held" || vote.createdAt >= since ? vote.createdAt : vote.updatedAt).getTime(),
              counting: COUNTING_CODE[vote.counting],
              up: vote.direction === "up",
              cleared: clearedGroup(state, vote.groupId)
            })
          }
        }
        // The window starts at `since`, or earlier at the oldest held vote it holds.
        const from = rows.reduce((earliest, r) => Math.min(earliest, r.at), since.getTime())
        const products = [...new Set(rows.map((r) => r.product))].sort()
        const voters = [...new Set(rows.map((r) => r.voter))].sort()
        const networks = [...new Set(rows.flatMap((r) => (r.network === null ? [] : [r.network])))].sort()
        const index = (list: ReadonlyArray<string>) => new Map(list.map((value, i) => [value, i]))
        const [productIndex, voterIndex, networkIndex] = [index(products), index(voters), index(networks)]
        // In order by product, then voter (LedgerWindow): numbered in the texts' sorted order, so by their numbers.
        const productNumber = (r: (typeof rows)[number]) => productIndex.get(r.product)!
        rows.sort((a, b) => productNumber(a) - productNumber(b) || voterIndex.get(a.voter)! - voterIndex.get(b.voter)!)
        return {
          since: new Date(from),
          products: products as Array<ProductId>,
          voters,
          networks,
          starts: runsOf(rows.length, (i) => productNumber(rows[i]!), products.length),
          voter: Int32Array.from(rows, (r) => voterIndex.get(r.voter)!),
          networkOf: (() => {
            const network = Int32Array.from(rows, (r) => (r.network === null ? -1 : networkIndex.get(r.network)!))
            return (i: number) => network[i] ?? -1
          })(),
          seconds: Int32Array.from(rows, (r) => Math.floor((r.at - from) / 1000)),
          counting: Uint8Array.from(rows, (r) => r.counting),
          direction: Uint8Array.from(rows, (r) => (r.up ? 0 : 1)),
          cleared: Uint8Array.from(rows, (r) => (r.cleared ? 1 : 0)),
          standing: Uint8Array.from(voters, (voter) => {
            const agent = voter.startsWith("agent:") ? state.agents.get(voter.slice("agent:".length) as never) : undefined
            return agent?.agent.standingSince != null ? 1 : 0
          })
        }
      }),
    networks: (keys) => Effect.sync(() => keys.map(({ productId, voter }) => state.votes.get(productId)?.get(voter)?.network ?? null)),
    evidence: (products) => Effect.sync(() => products.map((id) => state.products.get(id)?.weighted ?? null)),
    groups: Effect.sync(() =>
      [...state.groups.values()].sort((a, b) => b.foundAt.getTime() - a.foundAt.getTime() || (a.id < b.id ? -1 : 1))
    ),
    apply: (verdict, at) =>
      Effect.sync(() => {
        const touched = new Set<string>()
        let discounted = 0
        let released = 0
        for (const found of verdict.groups) {
          const known = state.groups.get(found.id)
          if (known?.status === "cleared") continue
          state.groups.set(found.id, {
            id: found.id,
            status: known?.status ?? "suspected",
            foundAt: known?.foundAt ?? at,
            decidedAt: known?.decidedAt ?? null,
            evidence: found.evidence
          })
          for (const key of found.votes) {
            const vote = state.votes.get(key.productId)?.get(key.voter)
            if (vote === undefined || vote.counting === "discounted" || clearedGroup(state, vote.groupId)) continue
            if (!found.discount) {
              // A group for review: its votes are marked as its own, and keep counting.
              vote.groupId ??= found.id
              continue
            }
            vote.counting = "discounted"
            vote.groupId = found.id
            discounted++
            touched.add(key.productId)
          }
        }
        const taught = new Map<string, Array<number>>()
        for (const key of verdict.release) {
          const vote = state.votes.get(key.productId)?.get(key.voter)
          if (vote?.counting !== "held") continue
          vote.counting = "counted"
          released++
          touched.add(key.productId)
          const castAt = taught.get(key.productId) ?? taught.set(key.productId, []).get(key.productId)!
          castAt.push(vote.createdAt.getTime())
        }
        for (const [id, castAt] of taught) state.rates.set(id, ratesAfterRelease(state.rates.get(id) ?? noRates, castAt, at.getTime()))
        // Discounting or counting a vote changes the product's formation even when the counters stay.
        const recounted = recount(state, touched)
        announce(state, [...touched].filter((id) => !recounted.some((r) => r.id === id)) as Array<ProductId>)
        return { discounted, released, recounted }
      }),
    settleStanding: (rule: StandingRule, at) =>
      Effect.sync(() => {
        const held = new Set<string>()
        for (const group of state.groups.values()) if (discounts(group)) for (const m of group.evidence.members) held.add(m)
        const gained: Array<string> = []
        const lost: Array<string> = []
        for (const stored of state.agents.values()) {
          const agent = stored.agent
          const key = agentLedgerKey(agent.id)
          if (held.has(key)) {
            if (agent.standingSince !== null) {
              stored.agent = { ...agent, standingSince: null }
              lost.push(key)
            }
            continue
          }
          if (agent.standingSince !== null || agent.revokedAt !== null) continue
          if (agent.createdAt.getTime() > at.getTime() - rule.minAgeSeconds * 1000) continue
          let settled = 0
          for (const ballots of state.votes.values()) {
            const vote = ballots.get(key)
            if (
              vote?.counting === "counted" &&
              vote.revokedAt === null &&
              vote.updatedAt.getTime() <= at.getTime() - rule.settledSeconds * 1000
            ) {
              settled++
            }
          }
          if (settled < rule.minVotes) continue
          stored.agent = { ...agent, standingSince: at }
          gained.push(key)
        }
        return { gained: gained.sort(), lost: lost.sort() } satisfies Settled
      }),
    decide: (id, status, at) =>
      Effect.suspend((): Effect.Effect<GroupDecision, GroupNotFound> => {
        const group = state.groups.get(id)
        if (group === undefined) return Effect.fail(new GroupNotFound({ id }))
        if (group.status === status) return Effect.succeed({ group, changed: false, votes: 0, recounted: [] })
        const decided: VoteGroup = { ...group, status, decidedAt: at }
        state.groups.set(id, decided)
        const touched = new Set<string>()
        let votes = 0
        for (const [product, ballots] of state.votes) {
          for (const vote of ballots.values()) {
            if (vote.groupId !== id) continue
            const next = status === "cleared" ? "counted" : "discounted"
            if (vote.counting === next) continue
            vote.counting = next
            votes++
            touched.add(product)
          }
        }
        if (status === "confirmed") {
          for (const stored of state.agents.values()) {
            if (stored.agent.standingSince !== null && group.evidence.members.includes(agentLedgerKey(stored.agent.id))) {
              stored.agent = { ...stored.agent, standingSince: null }
            }
          }
        }
        const recounted = recount(state, touched)
        announce(state, [...touched] as Array<ProductId>)
        return Effect.succeed({ group: decided, changed: true, votes, recounted })
      })
  })

export const layer = Layer.effect(IntegrityLedger, MemoryState.useSync(make))

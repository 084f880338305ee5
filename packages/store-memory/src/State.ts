/**
 * Everything the in-memory store holds. Every operation of the store runs as
 * one synchronous step over this state, so each is atomic on the event loop and
 * concurrent votes are counted exactly without locks.
 */
import { Context, Result } from "effect"
import {
  addTally,
  type Agent,
  type AgentId,
  canonicalProductId,
  type ProductChange,
  countedTally,
  countedWeights,
  isProductId,
  type Product,
  type ProductId,
  ProductNotFound,
  ProductRemoved,
  type Publisher,
  type Recount,
  type AuditEntry,
  type StoredReply,
  type StoredVersion,
  type Tally,
  tallyEquals,
  type VoteCounting,
  type VoteDirection,
  type VoteGroup,
  type VoteRates,
  weightedOf
} from "@productdir/domain"

export interface LedgerVote {
  direction: VoteDirection
  readonly createdAt: Date
  updatedAt: Date
  /** Set while the agent that cast it is revoked: the vote stays and does not count. */
  revokedAt: Date | null
  /** Whether it counts, waits for the integrity pass, or was found part of a coordinated group. */
  counting: VoteCounting
  /** The client's neighbourhood as a keyed hash, when the transport gave it. */
  readonly network: string | null
  /** The group that discounted it. */
  groupId: string | null
  /** What it weighs when it counts (thousandths of a vote): its voter's standing when it was cast (domain judgement.ts). */
  weight: number
}

export interface Report {
  readonly summary: string
  readonly at: Date
  revokedAt: Date | null
  /** The reporter's neighbourhood (its vote's), for the network's budget of report text. */
  readonly network: string | null
}

export interface StoredAgent {
  agent: Agent
  readonly keyHash: string | null
}

export interface State {
  readonly products: Map<string, Product>
  readonly slugs: Map<string, ProductId>
  /** product id -> problem id -> its publisher's reply */
  readonly replies: Map<string, Map<string, StoredReply>>
  /** product id -> the publisher that changed it last (until an import writes it again) */
  readonly editedBy: Map<string, string>
  /** product id -> why an operator took it down */
  readonly takenDown: Map<string, string>
  /** The audit trail, oldest first. */
  readonly audit: Array<AuditEntry>
  /** publisher id -> publisher */
  readonly publishers: Map<string, Publisher>
  /** product id -> the versions its changes replaced, oldest first */
  readonly versions: Map<string, Array<StoredVersion>>
  /** product id -> voter -> live vote */
  readonly votes: Map<string, Map<string, LedgerVote>>
  /** product id -> normalised reason -> voter -> report */
  readonly reports: Map<string, Map<string, Map<string, Report>>>
  readonly settings: Map<string, string>
  /** Nonce key -> epoch milliseconds its claim expires (Nonces). */
  readonly nonces: Map<string, number>
  readonly agents: Map<AgentId, StoredAgent>
  /** key hash -> agent; "directory keyid" -> agent */
  readonly agentKeys: Map<string, AgentId>
  readonly signedAgents: Map<string, AgentId>
  /** product id -> its decayed vote counts (the burst guard's) */
  readonly rates: Map<string, VoteRates>
  /** The voter groups the integrity pass found, by id. */
  readonly groups: Map<string, VoteGroup>
  /** Who hears of changes (ProductChanges): called synchronously as each change is made. */
  readonly listeners: Set<(change: ProductChange) => void>
}

export const emptyState = (): State => ({
  products: new Map(),
  slugs: new Map(),
  versions: new Map(),
  publishers: new Map(),
  audit: [],
  takenDown: new Map(),
  editedBy: new Map(),
  replies: new Map(),
  votes: new Map(),
  reports: new Map(),
  settings: new Map(),
  nonces: new Map(),
  agents: new Map(),
  agentKeys: new Map(),
  signedAgents: new Map(),
  rates: new Map(),
  groups: new Map(),
  listeners: new Set()
})

/** Tells every listener that these products changed. */
export const announce = (state: State, ids: ReadonlyArray<ProductId>): void => {
  if (ids.length === 0) return
  const change: ProductChange = { _tag: "Products", ids }
  for (const listener of state.listeners) listener(change)
}

/** The state shared by one store's services (one per layer build). */
export class MemoryState extends Context.Service<MemoryState, State>()("@productdir/store-memory/MemoryState") {}

export const isLive = (p: Product | undefined): p is Product => p !== undefined && p.removedAt === null

export const resolve = (state: State, ref: string): Product | undefined => {
  const id = isProductId(ref) ? canonicalProductId(ref) : state.slugs.get(ref)
  return id === undefined ? undefined : state.products.get(id)
}

export const findLive = (state: State, ref: string): Result.Result<Product, ProductNotFound | ProductRemoved> => {
  const product = resolve(state, ref)
  if (product === undefined) return Result.fail(new ProductNotFound({ ref }))
  if (product.removedAt !== null) {
    const reason = state.takenDown.get(product.id)
    return Result.fail(
      new ProductRemoved({ id: product.id, removedAt: product.removedAt.toISOString(), ...(reason === undefined ? {} : { reason }) })
    )
  }
  return Result.succeed(product)
}

/** The counted votes of a product's ledger (VoteLedger.ts states the rule). */
export const ledgerTally = (state: State, id: string): Tally => countedTally(state.votes.get(id)?.values() ?? [])

/** The weights of the counted votes of a product's ledger, summed by direction. */
export const ledgerWeights = (state: State, id: string): Tally => countedWeights(state.votes.get(id)?.values() ?? [])

/**
 * Sets `ids`' counters to seed + counted votes, and their weighted evidence to the same weighed; the products whose
 * counters or evidence moved, with their counters before and after. Announces them.
 */
export const recountProducts = (state: State, ids: Iterable<string>): Array<Recount> => {
  const recounted: Array<Recount> = []
  for (const id of [...new Set(ids)].sort()) {
    const product = state.products.get(id)
    if (product === undefined) continue
    const after = addTally(product.seed, ledgerTally(state, id))
    const weighted = weightedOf(product.seed, ledgerWeights(state, id))
    if (tallyEquals(after, product.counters) && tallyEquals(weighted, product.weighted)) continue
    state.products.set(id, { ...product, counters: after, weighted })
    recounted.push({ id, before: product.counters, after })
  }
  announce(
    state,
    recounted.map((r) => r.id as ProductId)
  )
  return recounted
}

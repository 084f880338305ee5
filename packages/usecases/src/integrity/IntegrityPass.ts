/**
 * The integrity pass (docs/threat-model.md; run by productdir-reconcile before its recount): reads the
 * recent ledger (the last `windowSeconds`, and every held vote), finds the voter groups that vote in
 * lockstep (coordinatedGroups.ts), discounts their votes, counts the held votes that pass (release.ts), and
 * gives standing to agents that earned it. Deterministic (the same ledger gives the same verdict,
 * groups in the same order with the same ids) and idempotent (a second pass over an unchanged ledger
 * changes nothing). With `apply: false` it says what it would do and writes nothing.
 */
import { Clock, Effect } from "effect"
import {
  COUNTED,
  DEFAULT_STANDING,
  DISCOUNTED,
  type GroupEvidence,
  IntegrityLedger,
  type LedgerWindow,
  productOf,
  readOnlyArray,
  type StandingRule,
  type Verdict,
  type VoteGroup,
  type VoteKey,
  votesIn
} from "@productdir/domain"
import { free } from "@productdir/columns"
import { derivedId } from "../ImportChecks.ts"
import { type AddressSettings, DEFAULT_ADDRESSES, findAddressSurges } from "./addresses.ts"
import { DEFAULT_LOCKSTEP, expand, type FoundGroup, findLockstep, findOverlap, type LockstepSettings } from "./coordinatedGroups.ts"
import { voterRanks } from "./ranks.ts"
import {
  DEFAULT_RELEASE,
  type Judged,
  type ReleaseSettings,
  type Reversible,
  releases,
  reversibleOf,
  WARM_UP_SECONDS,
  withStandingHeld
} from "./release.ts"

/**
 * Which groups are discounted on sight: those whose members voted most of the group's products
 * (`coverage`) and spent a good part of their recent votes on them (`focus`). Rings are built that way:
 * a ring's core spends most of its votes on its targets. Established voters who read the same newsletter
 * vote in step too, but some of its picks among many votes of their own: their focus is low, though their
 * coverage may be whole. The focus bar sits between the two (bench/src/crowd.ts simulates both). A group
 * below either bar is listed for an operator, and its votes count until one confirms it.
 */
export interface DiscountBar {
  readonly coverage: number
  readonly focus: number
}

export const DEFAULT_DISCOUNT_BAR: DiscountBar = { coverage: 0.6, focus: 0.35 }

export interface PassSettings {
  /** How far back the pass looks for groups: a slow ring spreads its votes over a week. */
  readonly windowSeconds: number
  readonly discountBar: DiscountBar
  readonly lockstep: LockstepSettings
  /** Products carried by addresses alone (addresses.ts). */
  readonly addresses: AddressSettings
  readonly release: ReleaseSettings
  readonly standing: StandingRule
}

export const DEFAULT_PASS: PassSettings = {
  windowSeconds: 8 * 86_400,
  discountBar: DEFAULT_DISCOUNT_BAR,
  lockstep: DEFAULT_LOCKSTEP,
  addresses: DEFAULT_ADDRESSES,
  release: DEFAULT_RELEASE,
  standing: DEFAULT_STANDING
}

export interface PassReport {
  /** The groups the pass found: new ones, and known ones seen again (their votes since discounted too). */
  readonly groups: ReadonlyArray<{
    readonly id: string
    readonly method: GroupEvidence["method"]
    readonly members: number
    readonly products: number
    readonly votes: number
    readonly known: boolean
    /** Listed for an operator's review; its votes keep counting. */
    readonly review: boolean
  }>
  /** Votes discounted (or, checking, that would be), held votes counted, agents given standing (0 when checking). */
  readonly discounted: number
  readonly released: number
  readonly standing: number
  /** Products recounted. */
  readonly recounted: number
  /** Votes the pass read. */
  readonly votesRead: number
  readonly applied: boolean
}

/** Groups of the two methods that share most of their members are one group. */
const merged = (found: ReadonlyArray<FoundGroup>): Array<FoundGroup> => {
  const groups: Array<FoundGroup> = []
  for (const group of found) {
    const members = new Set(group.members)
    const same = groups.findIndex((g) => {
      const common = g.members.filter((m) => members.has(m)).length
      return common >= 0.5 * Math.min(g.members.length, members.size)
    })
    if (same === -1) {
      groups.push(group)
      continue
    }
    const into = groups[same]!
    groups[same] = {
      method: into.method,
      votes: [...new Set([...into.votes, ...group.votes])].sort((a, b) => a - b),
      members: [...new Set([...into.members, ...group.members])].sort((a, b) => a - b),
      products: [...new Set([...into.products, ...group.products])].sort((a, b) => a - b)
    }
  }
  return groups
}

/** The median of `values` (0 for none). */
const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** How densely a group voted its products, and how much of its members' recent voting was the group's. */
const shapeOf = (group: FoundGroup, votesBy: Int32Array, window: LedgerWindow) => {
  const own = new Map<number, number>()
  for (const i of group.votes) own.set(window.voter[i]!, (own.get(window.voter[i]!) ?? 0) + 1)
  return {
    coverage: group.votes.length / (group.members.length * group.products.length),
    focus: median(group.members.map((m) => (own.get(m) ?? 0) / Math.max(1, votesBy[m]!)))
  }
}

/** Settlings of standing in one pass, at most: each can count held votes that earn more; one or two in practice. */
const MAX_SETTLINGS = 4

/** Marks the window's voter `key` (a ledger key; the window's voters are sorted) as having standing or not. */
const setStanding = (window: LedgerWindow, key: string, value: 0 | 1) => {
  let low = 0
  let high = window.voters.length - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    const voter = window.voters[middle]!
    if (voter === key) {
      window.standing[middle] = value
      return
    }
    if (voter < key) low = middle + 1
    else high = middle - 1
  }
}

const rounded = (x: number) => Math.round(x * 100) / 100

/** `networkOf(i)`: the network vote `i` was cast from (null when unknown), looked up for the groups' votes. */
const evidenceOf = (window: LedgerWindow, group: FoundGroup, networkOf: (i: number) => string | null): GroupEvidence => {
  const windows = new Map<number, { from: number; to: number }>()
  const networks = new Map<string, number>()
  for (const i of group.votes) {
    const p = productOf(window, i)
    const seen = windows.get(p)
    const at = window.seconds[i]!
    windows.set(p, seen === undefined ? { from: at, to: at } : { from: Math.min(seen.from, at), to: Math.max(seen.to, at) })
    const network = networkOf(i) ?? "unknown"
    networks.set(network, (networks.get(network) ?? 0) + 1)
  }
  const iso = (seconds: number) => new Date(window.since.getTime() + seconds * 1000).toISOString()
  return {
    method: group.method,
    members: group.members.map((v) => window.voters[v]!).sort(),
    products: group.products.map((p) => window.products[p]!),
    windows: [...windows].sort((a, b) => a[0] - b[0]).map(([p, w]) => ({ product: window.products[p]!, from: iso(w.from), to: iso(w.to) })),
    networks: [...networks].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([network, votes]) => ({ network, votes })),
    votes: group.votes.length
  }
}

/** The id a found group goes by: a known group it mostly is (not a cleared one), else one derived from its members. */
const idFor = (evidence: GroupEvidence, known: ReadonlyArray<VoteGroup>): { readonly id: string; readonly known: boolean } => {
  const members = new Set(evidence.members)
  const match = known.find(
    (g) =>
      g.status !== "cleared" &&
      g.evidence.members.filter((m) => members.has(m)).length >= 0.5 * Math.min(g.evidence.members.length, members.size)
  )
  return match !== undefined ? { id: match.id, known: true } : { id: derivedId(`group:${evidence.members.join(",")}`), known: false }
}

/**
 * The products on which the replay may judge a reversal (release.ts, Reversible), with their evidence: a few
 * products (those holding a vote of a voter with standing), read at once. A product gone from the catalog has none.
 */
const reversiblesOf = (window: LedgerWindow, grouped: ReadonlySet<number>, judged: Judged) =>
  Effect.gen(function* () {
    const ledger = yield* IntegrityLedger
    const products = withStandingHeld(window, grouped, judged)
    const evidence = yield* ledger.evidence(products.map((p) => window.products[p]!))
    const reversibles = new Map<number, Reversible>()
    products.forEach((p, k) => {
      const weighted = evidence[k]
      if (weighted != null) reversibles.set(p, reversibleOf(window, p, weighted, judged))
    })
    return reversibles
  })

export const runPass = (options: { readonly settings?: PassSettings; readonly apply: boolean }) =>
  Effect.gen(function* () {
    const settings = options.settings ?? DEFAULT_PASS
    const ledger = yield* IntegrityLedger
    const now = new Date(yield* Clock.currentTimeMillis)
    // On a whole second: the window's times are whole seconds from its start, so that the votes of one second of
    // the clock are one second of the window whenever the pass runs (the same ledger, the same replay).
    const since = new Date(Math.floor((now.getTime() - settings.windowSeconds * 1000) / 1000) * 1000)
    const window = yield* ledger.window(since)
    const known = yield* ledger.groups
    // The window starts earlier than asked when it holds older held votes: only from `since` is it whole.
    const replayFrom = Math.max(0, Math.floor((since.getTime() - window.since.getTime()) / 1000))
    // Rings are voters in step across products; a drip is one product's addresses: found apart, never merged. The
    // groups are merged in the ledger's order of their members (ranks.ts), not in their numbers' (their ids').
    const rank = voterRanks(window)
    const inLedgerOrder = (groups: ReadonlyArray<FoundGroup>) => {
      const first = (g: FoundGroup) => Math.min(...g.members.map((m) => rank[m]!))
      return [...groups].sort((a, b) => first(a) - first(b))
    }
    const rings = inLedgerOrder([...findLockstep(window, settings.lockstep), ...findOverlap(window, rank, settings.lockstep)])
    const found = [
      ...expand(window, merged(rings), settings.lockstep),
      ...findAddressSurges(window, settings.addresses, replayFrom, replayFrom + WARM_UP_SECONDS)
    ]
    const votesBy = new Int32Array(window.voters.length)
    for (let i = 0; i < window.voter.length; i++) votesBy[window.voter[i]!]!++
    const keyOf = (i: number): VoteKey => ({ productId: window.products[productOf(window, i)]!, voter: window.voters[window.voter[i]!]! })
    // Made as the store writes them: a verdict's tens of thousands of keys made at once would sit beside its writes.
    const keysOf = (votes: ReadonlyArray<number>): ReadonlyArray<VoteKey> => readOnlyArray(votes.length, (k) => keyOf(votes[k]!))
    // The window need not hold every vote's network (LedgerWindow): the groups' are asked for, a few thousand votes.
    const groupVotes = [...new Set(found.flatMap((group) => group.votes))].sort((a, b) => a - b)
    const looked = groupVotes.length === 0 ? [] : yield* ledger.networks(groupVotes.map(keyOf))
    const networkAt = new Map(groupVotes.map((i, k) => [i, looked[k] ?? null]))
    const networkOf = (i: number) => networkAt.get(i) ?? null
    const groups = found.map((group) => {
      const shape = shapeOf(group, votesBy, window)
      // A small group of established voters (every member with standing) waits for a person: a few voters who earned
      // their standing and vote in step on a few obscure products are more often readers of one newsletter than a
      // bought ring, and what they weigh, they earned. A small ring of fresh identities is discounted on sight; a
      // standing one turning on a settled product waits anyway, as a reversal (voteCounting.ts).
      const established = group.members.length < settings.lockstep.minMembers && group.members.every((m) => window.standing[m] === 1)
      const review = shape.coverage < settings.discountBar.coverage || shape.focus < settings.discountBar.focus || established
      const evidence: GroupEvidence = {
        ...evidenceOf(window, group, networkOf),
        coverage: rounded(shape.coverage),
        focus: rounded(shape.focus),
        review
      }
      return {
        ...idFor(evidence, known),
        evidence,
        votes: group.votes.map(keyOf),
        discount: !review,
        fresh: review ? 0 : group.votes.filter((i) => window.counting[i] !== DISCOUNTED).length
      }
    })
    // Votes of the groups discounted never count; a group for review's keep counting, so they stay in the replay.
    const grouped = new Set(found.filter((_, k) => groups[k]!.discount).flatMap((g) => [...g.votes, ...(g.held ?? [])]))
    const judged = { replayFrom, judgeFrom: replayFrom + WARM_UP_SECONDS }
    // What follows reads the window for the replay alone (releases): the marks only the detectors read go now, 20 MB
    // at ten million votes, before the replay's lists and the verdict's writes add theirs (the pass's peak).
    const reversibles = yield* reversiblesOf(window, grouped, judged)
    free(window.direction)
    free(window.cleared)
    const released = releases(window, grouped, settings.release, judged, rank, reversibles)
    const verdict: Verdict = {
      groups: groups.map(({ id, evidence, votes, discount }) => ({ id, evidence, votes, discount })),
      release: keysOf(released)
    }
    const summary = {
      groups: groups.map((g) => ({
        id: g.id,
        method: g.evidence.method,
        members: g.evidence.members.length,
        products: g.evidence.products.length,
        votes: g.evidence.votes,
        known: g.known,
        review: g.evidence.review === true
      })),
      votesRead: votesIn(window)
    }
    if (!options.apply) {
      return {
        ...summary,
        discounted: groups.reduce((n, g) => n + g.fresh, 0),
        released: released.length,
        standing: 0,
        recounted: 0,
        applied: false
      } satisfies PassReport
    }
    const applied = yield* ledger.apply(verdict, now)
    // Standing settled now changes how the next pass would judge the same bursts (an episode whose voters
    // have just earned standing is what they say it is), and the votes that then count can earn more: the
    // held votes are judged again here, against the ledger as the next pass would read it, until nothing
    // moves. Without it a second pass over an unchanged ledger would count more.
    let settled = yield* ledger.settleStanding(settings.standing, now)
    let standing = settled.gained.length
    let releasedVotes = applied.released
    const recounted = new Set(applied.recounted.map((r) => r.id))
    let counted = released
    for (let round = 1; round < MAX_SETTLINGS && settled.gained.length + settled.lost.length > 0; round++) {
      // The window becomes the next pass's, in place: nothing after the verdict reads it as it was read (a copy of
      // its countings would be 10 MB at ten million votes, at the pass's peak).
      for (const i of counted) window.counting[i] = COUNTED
      for (const key of settled.gained) setStanding(window, key, 1)
      for (const key of settled.lost) setStanding(window, key, 0)
      counted = releases(window, grouped, settings.release, judged, rank, reversibles)
      if (counted.length === 0) break
      const more = yield* ledger.apply({ groups: [], release: keysOf(counted) }, now)
      releasedVotes += more.released
      for (const r of more.recounted) recounted.add(r.id)
      settled = yield* ledger.settleStanding(settings.standing, now)
      standing += settled.gained.length
    }
    return {
      ...summary,
      discounted: applied.discounted,
      released: releasedVotes,
      standing,
      recounted: recounted.size,
      applied: true
    } satisfies PassReport
  }).pipe(Effect.withSpan("IntegrityPass.run"))

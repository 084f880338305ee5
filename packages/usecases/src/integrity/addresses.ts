/**
 * Finding a product carried by addresses alone (docs/threat-model.md, "An anonymous drip"). A botnet
 * can vote one product from a new /16 every quarter of an hour for a week: each address is one vote,
 * under every network budget, and never a burst (a few votes an hour). Rates cannot tell that from a
 * product anonymous visitors like; who votes can. A benign product's votes come from agents and from
 * addresses that vote other products too, in about the catalog's proportions; a drip's come from
 * addresses that exist for it: single-purpose addresses, voting one way, that neither the product's
 * agents nor its visitors with a history corroborate.
 *
 * A product is carried when, in one direction, its single-purpose addresses cast at least `minVotes`
 * votes and `dominance` times both what its agents cast that way (plus one) and what its other
 * addresses would predict at the catalog's ratio (plus one). Each test alone would misfire: a viral
 * product's anonymous fans are single-purpose too, but its agents vote with them; a young directory
 * whose voters are mostly addresses has few agents anywhere, but its visitors with a history vote
 * with the single-purpose ones. The group found is those addresses, on that one product.
 */
import { DISCOUNTED, forEachVote, HELD, isAgentLedgerKey, type LedgerWindow, votesIn } from "@productdir/domain"
import type { FoundGroup } from "./coordinatedGroups.ts"

export interface AddressSettings {
  /** Single-purpose addresses' votes (in one direction, on one product) below which nothing is found. */
  readonly minVotes: number
  /** How many times what corroborates them (plus one) they must be. */
  readonly dominance: number
  /** An address is single-purpose when it voted at most this many products in the window. */
  readonly maxVotesPerAddress: number
}

export const DEFAULT_ADDRESSES: AddressSettings = { minVotes: 20, dominance: 5, maxVotesPerAddress: 2 }

/**
 * The products carried by addresses alone, each a group of its single-purpose addresses' votes in that
 * direction that counted (those already discounted included, so that a drip found early stays found as it
 * goes on).
 * Only votes from `from` (seconds after `window.since`) on are looked at: before, the window holds only
 * old held votes. And only votes from `judgeFrom` on are judged, while those between count towards their
 * voters' history: at the window's edge an address's earlier votes have left it, and a visitor who voted
 * nine products in an hour would look single-purpose. Deterministic: products ascending, up before down.
 */
export const findAddressSurges = (
  window: LedgerWindow,
  settings: AddressSettings = DEFAULT_ADDRESSES,
  from = 0,
  judgeFrom = from
): Array<FoundGroup> => {
  const n = votesIn(window)
  const history = (i: number) => window.cleared[i] === 0 && window.seconds[i]! >= from
  const taking = (i: number) => history(i) && window.seconds[i]! >= judgeFrom
  const address = new Uint8Array(window.voters.length)
  for (let v = 0; v < window.voters.length; v++) address[v] = isAgentLedgerKey(window.voters[v]!) ? 0 : 1
  const votesBy = new Int32Array(window.voters.length)
  for (let i = 0; i < n; i++) if (history(i)) votesBy[window.voter[i]!]!++
  const single = (i: number) => address[window.voter[i]!] === 1 && votesBy[window.voter[i]!]! <= settings.maxVotesPerAddress
  /** What a vote taken is: a single-purpose address's, one of a group found (corroborates nothing), another address's, an agent's. */
  const kindOf = (i: number): Kind =>
    single(i) ? LONE : window.counting[i] === DISCOUNTED ? NONE : address[window.voter[i]!] === 1 ? OTHER : AGENT

  // The catalog's single-purpose addresses' votes and other addresses' votes, then each product's own, a run at a
  // time (a product's votes are one run of the window): tallies for every product and direction at once would be
  // tens of MB at a million products, at the pass's peak (docs/benchmarks.md). Two walks, each vote told twice: a
  // little time, for the memory.
  let loneAll = 0
  let othersAll = 0
  for (let i = 0; i < n; i++) {
    if (!taking(i)) continue
    const kind = kindOf(i)
    if (kind === LONE) loneAll++
    else if (kind === OTHER) othersAll++
  }
  // Where hardly an address votes twice, what a product's visitors with a history would predict is unknown:
  // nothing is found rather than every product anonymous visitors like.
  if (othersAll < settings.minVotes) return []

  /** A carried slot (2 × product + direction): what corroborates its single-purpose votes, at the catalog's ratio. */
  const carried = new Map<number, number>()
  const tally = new Int32Array(2 * KINDS)
  for (let p = 0; p + 1 < window.starts.length; p++) {
    const start = window.starts[p]!
    const end = window.starts[p + 1]!
    tally.fill(0)
    for (let i = start; i < end; i++) if (taking(i)) tally[2 * kindOf(i) + window.direction[i]!]!++
    // The catalog's ratio of the two kinds of addresses, leaving out the product judged (a drip is its own product's
    // single-purpose votes: in a small catalog it would raise the bar it is judged by).
    const lonely = loneAll - tally[2 * LONE]! - tally[2 * LONE + 1]!
    const regular = othersAll - tally[2 * OTHER]! - tally[2 * OTHER + 1]!
    const ratio = regular < settings.minVotes ? Number.POSITIVE_INFINITY : lonely / regular
    for (let direction = 0; direction < 2; direction++) {
      const votes = tally[2 * LONE + direction]!
      const agents = tally[2 * AGENT + direction]!
      const others = tally[2 * OTHER + direction]!
      if (votes < settings.minVotes || votes < settings.dominance * (agents + 1)) continue
      if (votes >= settings.dominance * (ratio * others + 1))
        carried.set(2 * p + direction, settings.dominance * (Math.max(agents, ratio * others) + 1))
    }
  }
  if (carried.size === 0) return []

  const votesOf = new Map<number, Array<number>>()
  forEachVote(window, (i, p) => {
    if (!taking(i) || !single(i)) return
    const slot = 2 * p + window.direction[i]!
    if (!carried.has(slot)) return
    const list = votesOf.get(slot)
    if (list === undefined) votesOf.set(slot, [i])
    else list.push(i)
  })
  const span = Math.max(1, (window.seconds.length === 0 ? 0 : maxSeconds(window)) - judgeFrom)
  const groups: Array<FoundGroup> = []
  for (const [slot, all] of [...votesOf].sort((a, b) => a[0] - b[0])) {
    // The surge is the stretch of time in which they came faster than what corroborates them and than half
    // their own average over the window: a benign vote of the same kind days before a drip began is not its.
    const corroborated = carried.get(slot)!
    const stretch = trimmed(densest(all, window.seconds, (corroborated + all.length / 2) / span), window.seconds)
    if (stretch.length < settings.minVotes) continue
    // Its held votes (a flood the burst guard caught) stay held: nothing in a vote tells a flood's address from a
    // visitor's caught in it, and held, neither counts. They are the group's all the same: without them in it, the
    // pass's replay would count the first of them as bystanders, a floor's worth a pass, each discounted a pass later.
    const votes = stretch.filter((i) => window.counting[i] !== HELD)
    if (votes.length === 0) continue
    groups.push({
      method: "addresses",
      votes,
      held: stretch.filter((i) => window.counting[i] === HELD),
      members: [...new Set(votes.map((i) => window.voter[i]!))].sort((a, b) => a - b),
      products: [slot >> 1]
    })
  }
  return groups
}

/** The kinds of a vote taken (kindOf), numbered for a product's tally: [kind × 2 + direction]. */
type Kind = 0 | 1 | 2 | 3
const LONE: Kind = 0
const AGENT: Kind = 1
const OTHER: Kind = 2
const NONE: Kind = 3
const KINDS = 4

/** How far apart, in its own median gaps, a vote at either end of a stretch may be from the next one in. */
const END_GAPS = 10

/**
 * A stretch without the votes at its ends that stand apart from it: a flood votes within seconds, so a
 * visitor's vote minutes before it is not the flood's; a drip's gaps are a quarter of an hour, so its ends stay.
 */
const trimmed = (stretch: ReadonlyArray<number>, seconds: Int32Array): Array<number> => {
  const sorted = [...stretch].sort((a, b) => seconds[a]! - seconds[b]! || a - b)
  if (sorted.length < 3) return sorted
  const gaps = sorted.slice(1).map((i, k) => seconds[i]! - seconds[sorted[k]!]!)
  const median = Math.max(1, [...gaps].sort((a, b) => a - b)[gaps.length >> 1]!)
  let from = 0
  let to = sorted.length - 1
  while (from < to && gaps[from]! > END_GAPS * median) from++
  while (to > from && gaps[to - 1]! > END_GAPS * median) to--
  return sorted.slice(from, to + 1).sort((a, b) => a - b)
}

const maxSeconds = (window: LedgerWindow): number => {
  let max = 0
  for (let i = 0; i < window.seconds.length; i++) if (window.seconds[i]! > max) max = window.seconds[i]!
  return max
}

/**
 * The stretch of `votes` (sorted by time on the way) that most exceeds `rate` votes a second: each vote
 * counts one, each second between two of them costs `rate` (the largest-sum run, in one scan).
 */
const densest = (votes: ReadonlyArray<number>, seconds: Int32Array, rate: number): Array<number> => {
  const sorted = [...votes].sort((a, b) => seconds[a]! - seconds[b]! || a - b)
  let best = 0
  let bestFrom = 0
  let bestTo = -1
  let sum = 0
  let from = 0
  for (let k = 0; k < sorted.length; k++) {
    const gap = k === 0 ? 0 : seconds[sorted[k]!]! - seconds[sorted[k - 1]!]!
    sum -= rate * gap
    if (sum < 0) {
      sum = 0
      from = k
    }
    sum += 1
    if (sum > best) {
      best = sum
      bestFrom = from
      bestTo = k
    }
  }
  return sorted.slice(bestFrom, bestTo + 1).sort((a, b) => a - b)
}

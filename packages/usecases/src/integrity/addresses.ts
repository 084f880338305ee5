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
import { DISCOUNTED, forEachVote, free, HELD, isAgentLedgerKey, type LedgerWindow, votesIn } from "@productdir/domain"
import type { FoundGroup } from "./lockstep.ts"

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

  // Per product and direction (slot 2p + direction): single-purpose addresses' votes, agents', other addresses'.
  // One buffer, given back as the search returns (24 MB at a million products): dropped, it stayed until V8's
  // next full collection, through the replay that follows, where the pass's memory peaked (docs/benchmarks.md).
  const slots = 2 * window.products.length
  const tallies = new Int32Array(3 * slots)
  try {
    const tally = { lone: tallies.subarray(0, slots), agents: tallies.subarray(slots, 2 * slots), others: tallies.subarray(2 * slots) }
    return surges(window, settings, judgeFrom, { taking, single, address }, tally)
  } finally {
    free(tallies)
  }
}

/** findAddressSurges with its votes' kinds told and its tallies' memory given: zeroed, 2 × products each. */
const surges = (
  window: LedgerWindow,
  settings: AddressSettings,
  judgeFrom: number,
  kinds: {
    readonly taking: (i: number) => boolean
    readonly single: (i: number) => boolean
    readonly address: Uint8Array
  },
  tally: { readonly lone: Int32Array; readonly agents: Int32Array; readonly others: Int32Array }
): Array<FoundGroup> => {
  const { taking, single, address } = kinds
  const { lone, agents, others } = tally
  const slots = lone.length
  let loneAll = 0
  let othersAll = 0
  forEachVote(window, (i, p) => {
    if (!taking(i)) return
    const slot = 2 * p + window.direction[i]!
    if (single(i)) {
      lone[slot]!++
      loneAll++
    } else if (window.counting[i] === DISCOUNTED) {
      // Votes of groups found do not corroborate anything.
    } else if (address[window.voter[i]!] === 1) {
      others[slot]!++
      othersAll++
    } else agents[slot]!++
  })
  // Where hardly an address votes twice, what a product's visitors with a history would predict is unknown:
  // nothing is found rather than every product anonymous visitors like.
  if (othersAll < settings.minVotes) return []
  // The catalog's ratio of the two kinds of addresses, leaving out the product judged (a drip is its own product's
  // single-purpose votes: in a small catalog it would raise the bar it is judged by).
  const ratioWithout = (p: number) => {
    const lonely = loneAll - lone[2 * p]! - lone[2 * p + 1]!
    const regular = othersAll - others[2 * p]! - others[2 * p + 1]!
    return regular < settings.minVotes ? Number.POSITIVE_INFINITY : lonely / regular
  }
  const carried = new Set<number>()
  for (let slot = 0; slot < slots; slot++) {
    const votes = lone[slot]!
    if (votes < settings.minVotes || votes < settings.dominance * (agents[slot]! + 1)) continue
    const ratio = ratioWithout(slot >> 1)
    if (votes >= settings.dominance * (ratio * others[slot]! + 1)) carried.add(slot)
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
    const corroborated = settings.dominance * (Math.max(agents[slot]!, ratioWithout(slot >> 1) * others[slot]!) + 1)
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

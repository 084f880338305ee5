/**
 * Which held votes the integrity pass counts (packages/domain/src/trust/voteCounting.ts). A burst waits for the
 * pass, which judges each product's votes after the groups are found (their votes never count here):
 *
 * 1. The burst guard is replayed over the product's votes as if the groups' votes had never been
 *    cast: a held vote that would then have counted is counted (a bystander caught in a ring's burst).
 * 2. The votes still held are judged by episode: the votes cast while the product was in a burst,
 *    until it has been out of it for an hour. When at least `standingShare` of an episode's votes came from agents with standing, the
 *    burst is what its established voters say it is (a product gone viral): its held votes count.
 *    Episodes are judged alone, so a standing voter hours later releases no one.
 * 3. Otherwise the held votes of proven agents count: a burst no group explains is what its voters say, however
 *    few networks they came from (a quiet product's 11th and 12th votes), and what a fresh agent's vote can buy
 *    is what it weighs (packages/domain/src/trust/judgement.ts: a fortieth of a vote), not whether it counts. When
 *    those agents came from many neighbourhoods (at least `minNetworks`, and at least `diversity` of them
 *    distinct) and, with the established voters, cast at least `provenShare` of the episode's votes (or
 *    `usualShare` of the share agents cast of every vote in the window, when that is lower), its held addresses
 *    count too: the anonymous fans of a product gone viral, or the directory's usual mix of voters arriving
 *    faster than a cold product's rates say (a new directory, an imported catalog, a popular product). A farm of
 *    agents from the few networks that registered them carries no addresses with it.
 * 4. Otherwise held votes of bare addresses stay held: a flood of addresses looks like nothing else.
 *
 * Only what the window shows whole is judged. The window holds the last `windowSeconds` of votes and,
 * before them, every vote still held: those older held votes are replayed with nothing around them
 * (the votes that surrounded them have left the window), so a replay would start them from a quiet
 * product and count the first of them every pass, a burst leaking out a floor's worth an hour. They
 * are left out of the replay, and so are the held votes of the window's first day, while the
 * replay's hourly rate warms up. A held vote is judged by every pass of its first week; after that,
 * it stays held.
 */
import {
  type BurstGuard,
  COUNTED,
  DEFAULT_BURST_GUARD,
  DISCOUNTED,
  decayedRates,
  forEachVote,
  HELD,
  holdsVote,
  isAgentLedgerKey,
  isBurst,
  isReversal,
  isReversalBurst,
  type LedgerWindow,
  noRates,
  type Tally,
  VOTE_WEIGHTS,
  ratesAfterVote,
  votesIn
} from "@productdir/domain"

export interface ReleaseSettings {
  readonly guard: BurstGuard
  readonly standingShare: number
  readonly minNetworks: number
  readonly diversity: number
  /** The share of an episode's votes from established voters and released agents at which its held addresses count too. */
  readonly provenShare: number
  /**
   * Or this much of the share agents cast of every vote in the window, when that is lower: an episode with
   * about the directory's usual mix of voters is its usual traffic; a flood of addresses is not.
   */
  readonly usualShare: number
  /** How many later votes of others must agree with a reversal (and at least half of them) before it counts. */
  readonly confirmations: number
}

export const DEFAULT_RELEASE: ReleaseSettings = {
  guard: DEFAULT_BURST_GUARD,
  standingShare: 0.3,
  minNetworks: 3,
  diversity: 0.5,
  provenShare: 0.5,
  usualShare: 0.5,
  confirmations: 3
}

/** Where the window shows the ledger whole (seconds after `window.since`): votes from `replayFrom` on, held ones judged from `judgeFrom` on. */
export interface Judged {
  readonly replayFrom: number
  readonly judgeFrom: number
}

/** The whole window: every vote replayed, every held vote judged. */
export const wholeWindow: Judged = { replayFrom: 0, judgeFrom: 0 }

/** How long a product stays out of a burst before its burst is over (an episode ends). */
export const EPISODE_GAP_SECONDS = 3_600

/** How long the replay's rates take to warm up before a held vote is judged by them. */
export const WARM_UP_SECONDS = 86_400

/**
 * A product on which a reversal may be held (voteCounting.ts, isReversal): one with a held vote of a voter with
 * standing. The replay judges its votes against what they had settled, as the cast did, which takes its
 * weighed evidence (the window begins mid-history) and its votes' directions (the window's own column is freed
 * before the replay, for the few products that hold a reversal).
 */
export interface Reversible {
  /**
   * What its evidence had settled before the window (thousandths of a vote): its weighed evidence now, less the
   * window's counted votes, each by what its voter's standing now says it weighs (the window keeps no weights).
   */
  readonly before: Tally
  /** Its votes' directions (0 up, 1 down), from the start of its run in the window. */
  readonly direction: Uint8Array
}

/** The products (window indices) with a held vote of a voter with standing, that the replay judges. */
export const withStandingHeld = (window: LedgerWindow, grouped: ReadonlySet<number>, judged: Judged = wholeWindow): Array<number> => {
  const products = new Set<number>()
  forEachVote(window, (i, p) => {
    if (window.counting[i] === HELD && window.standing[window.voter[i]!] === 1 && !grouped.has(i) && window.seconds[i]! >= judged.judgeFrom)
      products.add(p)
  })
  return [...products].sort((a, b) => a - b)
}

/** What vote `i` weighs, as far as the window tells: by its voter's standing now (judgement.ts). */
export const weightIn = (window: LedgerWindow, i: number): number => {
  const voter = window.voter[i]!
  if (window.standing[voter] === 1) return VOTE_WEIGHTS.standing
  return isAgentLedgerKey(window.voters[voter]!) ? VOTE_WEIGHTS.agent : VOTE_WEIGHTS.address
}

/** Product `p`'s Reversible, from its weighed evidence now; read before the window's directions are freed. */
export const reversibleOf = (window: LedgerWindow, p: number, weighted: Tally, judged: Judged = wholeWindow): Reversible => {
  const start = window.starts[p]!
  const end = window.starts[p + 1]!
  const before = { up: weighted.up, down: weighted.down }
  for (let i = start; i < end; i++) {
    if (window.counting[i] !== COUNTED || window.seconds[i]! < judged.replayFrom) continue
    if (window.direction[i] === 0) before.up -= weightIn(window, i)
    else before.down -= weightIn(window, i)
  }
  return { before: { up: Math.max(0, before.up), down: Math.max(0, before.down) }, direction: window.direction.slice(start, end) }
}

/** The indices of the held votes to count; `grouped` are votes the pass found in groups (never counted). */
export const releases = (
  window: LedgerWindow,
  grouped: ReadonlySet<number>,
  settings: ReleaseSettings = DEFAULT_RELEASE,
  judged: Judged = wholeWindow,
  rank?: Int32Array,
  reversibles: ReadonlyMap<number, Reversible> = new Map()
): Array<number> => {
  const seen = (i: number) => window.seconds[i]! >= judged.replayFrom
  const judges = (i: number) => window.seconds[i]! >= judged.judgeFrom
  const withHeld = new Set<number>()
  forEachVote(window, (i, p) => {
    if (window.counting[i] === HELD && !grouped.has(i) && judges(i)) withHeld.add(p)
  })
  if (withHeld.size === 0) return []
  // The share agents cast of the window's votes that take part: the directory's usual mix.
  // One voter at a time: the window may make each voter's key as it is read (Uint8Array.from would hold every one
  // at once).
  const agent = new Uint8Array(window.voters.length)
  for (let v = 0; v < agent.length; v++) agent[v] = isAgentLedgerKey(window.voters[v]!) ? 1 : 0
  let agentVotes = 0
  let takingPart = 0
  const total = votesIn(window)
  for (let i = 0; i < total; i++) {
    if (window.counting[i] === DISCOUNTED || grouped.has(i) || !seen(i)) continue
    takingPart++
    agentVotes += agent[window.voter[i]!]!
  }
  const provenBar = Math.min(settings.provenShare, (settings.usualShare * agentVotes) / Math.max(1, takingPart))
  const released: Array<number> = []
  for (const p of [...withHeld].sort((a, b) => a - b)) {
    // Its votes that may count, listed as it is judged: lists of every such product at once would be garbage
    // the verdict's writes then wait beside (the pass's peak).
    const votes: Array<number> = []
    for (let i = window.starts[p]!; i < window.starts[p + 1]!; i++) {
      if (window.counting[i] === DISCOUNTED || grouped.has(i) || !seen(i)) continue
      votes.push(i)
    }
    // In the order they were cast, as far as the window tells: by the second, and within a second the votes that
    // counted before those held (the guard held them because the others came first). By the voter's order instead, a
    // flood cast within a second would be replayed with some of its held votes ahead of its counted ones, which the
    // replay would then count: a few more of an address flood's votes every pass.
    // Then in the ledger's order of their voters (ranks.ts), not their ids'.
    const order = rank === undefined ? (i: number) => i : (i: number) => rank[window.voter[i]!]!
    votes.sort((a, b) => window.seconds[a]! - window.seconds[b]! || window.counting[a]! - window.counting[b]! || order(a) - order(b))
    let rates = noRates
    // What the product's evidence has settled, vote by vote (its weighed evidence before the window, then the votes the
    // replay counts), on a product where a reversal may be held; on any other, no vote is judged a reversal.
    const known = reversibles.get(p)
    const directionOf = (i: number): 0 | 1 => (known!.direction[i - window.starts[p]!] === 0 ? 0 : 1)
    const settled = { up: known?.before.up ?? 0, down: known?.before.down ?? 0 }
    // The votes the replay holds as reversals (voteCounting.ts, isReversal): voters with standing turning on the product.
    const reversals = new Set<number>()
    // Episodes are judged once the product's votes are all replayed: a reversal counts when later votes agree.
    const episodes: Array<{ readonly votes: ReadonlyArray<number>; readonly after: number }> = []
    let episode: Array<number> = []
    let lastBurst = Number.NEGATIVE_INFINITY
    const close = (after: number) => {
      if (episode.length > 0) episodes.push({ votes: episode, after })
      episode = []
    }
    for (let k = 0; k < votes.length; k++) {
      const i = votes[k]!
      const decayed = decayedRates(rates, window.seconds[i]! * 1000)
      const burst = isBurst(decayed, settings.guard)
      const standing = window.standing[window.voter[i]!] === 1
      const direction = known === undefined ? undefined : directionOf(i) === 0 ? "up" : "down"
      const reversal =
        standing && direction !== undefined && isReversal(settled, direction, settings.guard) && isReversalBurst(decayed, settings.guard)
      const held = holdsVote(decayed, settings.guard, { standing, reversal })
      // A vote that counts now taught the product's rate, when cast or when a pass counted it (ratesAfterRelease):
      // the replay learns what the guard learnt. A flood's votes never counted, and teach nothing.
      rates = ratesAfterVote(decayed, held && window.counting[i] !== COUNTED)
      if (direction !== undefined && (!held || window.counting[i] === COUNTED)) settled[direction] += weightIn(window, i)
      if (reversal) reversals.add(i)
      if (!burst && !reversal) {
        // A burst ends after an hour out of it: as it fades, the product dips in and out of the guard, and
        // those last votes are the same crowd, not episodes of their own to be judged alone.
        if (window.seconds[i]! - lastBurst >= EPISODE_GAP_SECONDS) close(k)
        if (window.counting[i] === HELD && judges(i)) released.push(i)
        continue
      }
      episode.push(i)
      lastBurst = window.seconds[i]!
    }
    close(votes.length)
    for (const { votes: inEpisode, after } of episodes) {
      const counts = judgeEpisode(window, inEpisode, reversals, settings, provenBar)
      if (reversals.size === 0) {
        released.push(...counts.filter(judges))
        continue
      }
      const agreed = laterAgreement(window, inEpisode, votes.slice(after), directionOf, settings)
      released.push(...counts.filter((i) => judges(i) && (!reversals.has(i) || agreed(directionOf(i)))))
    }
  }
  return released.sort((a, b) => a - b)
}

/**
 * Whether the votes cast on the product after an episode, by voters outside it, agree with a direction: at
 * least `confirmations` of them vote it, and at least half of them. A reversal waits for this: users who found a
 * fault are followed by others who find it; patient identities turning on a product together are followed by its
 * usual votes.
 */
const laterAgreement = (
  window: LedgerWindow,
  episode: ReadonlyArray<number>,
  later: ReadonlyArray<number>,
  directionOf: (i: number) => 0 | 1,
  settings: ReleaseSettings
): ((direction: 0 | 1) => boolean) => {
  const inEpisode = new Set(episode.map((i) => window.voter[i]!))
  const votes = [0, 0]
  for (const i of later) if (!inEpisode.has(window.voter[i]!)) votes[directionOf(i)]!++
  const all = votes[0]! + votes[1]!
  return (direction) => votes[direction]! >= settings.confirmations && 2 * votes[direction]! >= all
}

/** The held votes of one episode (votes cast while the product was in a burst, in order) that count. */
const judgeEpisode = (
  window: LedgerWindow,
  episode: ReadonlyArray<number>,
  reversals: ReadonlySet<number>,
  settings: ReleaseSettings,
  provenBar: number
): Array<number> => {
  const held = episode.filter((i) => window.counting[i] === HELD)
  if (held.length === 0) return []
  // Reversals vouch for no one: a burst of voters with standing turning on a product is what waits here.
  const standing = episode.filter((i) => window.standing[window.voter[i]!] === 1 && !reversals.has(i)).length
  if (standing >= settings.standingShare * episode.length) return held
  // The burst's agents without standing, held or counted by an earlier pass that saw the burst begin.
  const agents = episode.filter((i) => isAgentLedgerKey(window.voters[window.voter[i]!]!) && window.standing[window.voter[i]!] !== 1)
  const heldAgents = held.filter((i) => isAgentLedgerKey(window.voters[window.voter[i]!]!))
  const networks = new Set(agents.map((i) => window.networkOf(i)).filter((n) => n >= 0))
  if (networks.size < settings.minNetworks || networks.size < settings.diversity * agents.length) return heldAgents
  // Agents from everywhere and established voters making most of the burst: a product gone viral, whose
  // anonymous fans are fans too. A flood of addresses would need as many agents, from as many networks.
  return standing + agents.length >= provenBar * episode.length ? held : heldAgents
}

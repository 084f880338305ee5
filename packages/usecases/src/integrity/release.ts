/**
 * Which held votes the integrity pass counts (packages/domain/src/counting.ts). A burst waits for the
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
 *    is what it weighs (packages/domain/src/judgement.ts: a fortieth of a vote), not whether it counts. When
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
  isAgentLedgerKey,
  isBurst,
  type LedgerWindow,
  noRates,
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
}

export const DEFAULT_RELEASE: ReleaseSettings = {
  guard: DEFAULT_BURST_GUARD,
  standingShare: 0.3,
  minNetworks: 3,
  diversity: 0.5,
  provenShare: 0.5,
  usualShare: 0.5
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

/** The indices of the held votes to count; `grouped` are votes the pass found in groups (never counted). */
export const releases = (
  window: LedgerWindow,
  grouped: ReadonlySet<number>,
  settings: ReleaseSettings = DEFAULT_RELEASE,
  judged: Judged = wholeWindow,
  rank?: Int32Array
): Array<number> => {
  const seen = (i: number) => window.seconds[i]! >= judged.replayFrom
  const judges = (i: number) => window.seconds[i]! >= judged.judgeFrom
  const withHeld = new Set<number>()
  forEachVote(window, (i, p) => {
    if (window.counting[i] === HELD && !grouped.has(i) && judges(i)) withHeld.add(p)
  })
  if (withHeld.size === 0) return []
  // The share agents cast of the window's votes that take part: the directory's usual mix.
  // One voter at a time: the window may make each voter's key as it is read (Uint8Array.from held every one at once).
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
    // Its votes that may count, listed as it is judged: lists of every such product at once were ~10 MB at ten
    // million votes, garbage the verdict's writes then waited beside (the pass's peak).
    const votes: Array<number> = []
    for (let i = window.starts[p]!; i < window.starts[p + 1]!; i++) {
      if (window.counting[i] === DISCOUNTED || grouped.has(i) || !seen(i)) continue
      votes.push(i)
    }
    // In the order they were cast, as far as the window tells: by the second, and within a second the votes that
    // counted before those held (the guard held them because the others came first). By the voter's order instead, a
    // flood cast within a second was replayed with some of its held votes ahead of its counted ones, which the
    // replay then counted: a few more of an address flood's votes every pass, as many as the second's phase let.
    // Then in the ledger's order of their voters (ranks.ts), not their ids'.
    const order = rank === undefined ? (i: number) => i : (i: number) => rank[window.voter[i]!]!
    votes.sort((a, b) => window.seconds[a]! - window.seconds[b]! || window.counting[a]! - window.counting[b]! || order(a) - order(b))
    let rates = noRates
    let episode: Array<number> = []
    let lastBurst = Number.NEGATIVE_INFINITY
    const judge = () => {
      if (episode.length > 0) released.push(...judgeEpisode(window, episode, settings, provenBar).filter(judges))
      episode = []
    }
    for (const i of votes) {
      const decayed = decayedRates(rates, window.seconds[i]! * 1000)
      const burst = isBurst(decayed, settings.guard)
      const standing = window.standing[window.voter[i]!] === 1
      const held = burst && !standing
      // A vote that counts now taught the product's rate, when cast or when a pass counted it (ratesAfterRelease):
      // the replay learns what the guard learnt. A flood's votes never counted, and teach nothing.
      rates = ratesAfterVote(decayed, held && window.counting[i] !== COUNTED)
      if (!burst) {
        // A burst ends after an hour out of it: as it fades, the product dips in and out of the guard, and
        // those last votes are the same crowd, not episodes of their own to be judged alone.
        if (window.seconds[i]! - lastBurst >= EPISODE_GAP_SECONDS) judge()
        if (window.counting[i] === HELD && judges(i)) released.push(i)
        continue
      }
      episode.push(i)
      lastBurst = window.seconds[i]!
    }
    judge()
  }
  return released.sort((a, b) => a - b)
}

/** The held votes of one episode (votes cast while the product was in a burst, in order) that count. */
const judgeEpisode = (
  window: LedgerWindow,
  episode: ReadonlyArray<number>,
  settings: ReleaseSettings,
  provenBar: number
): Array<number> => {
  const held = episode.filter((i) => window.counting[i] === HELD)
  if (held.length === 0) return []
  const standing = episode.filter((i) => window.standing[window.voter[i]!] === 1).length
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

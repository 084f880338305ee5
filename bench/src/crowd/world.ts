/**
 * The benign world of the simulation: a catalog whose popularity follows a power law, agents that
 * register over the month and vote at their own times, anonymous visitors who vote a few products in
 * one sitting, products that go viral, and newsletters whose readers vote what was featured. Every
 * draw comes from one seeded generator: the same seed gives the same month.
 */
import { seeded } from "@productdir/fixtures"

export const HOUR = 3_600_000
export const DAY = 24 * HOUR

export type Rng = ReturnType<typeof seeded>

/** Draws beyond the generator's uniform ones. */
export const draws = (r: Rng) => ({
  exponential: (mean: number) => -mean * Math.log(1 - r.next()),
  lognormal: (median: number, sigma: number) => {
    const u = 1 - r.next()
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.next())
    return median * Math.exp(sigma * z)
  }
})

/** A time within [from, to) whose hour of day follows a daily cycle: most votes by day, fewest at night (UTC). */
export const dailyTime = (r: Rng, from: number, to: number): number => {
  for (;;) {
    const t = from + r.next() * (to - from)
    const hour = (t % DAY) / HOUR
    if (r.next() * 1.7 < 1 + 0.7 * Math.sin((2 * Math.PI * (hour - 8)) / 24)) return t
  }
}

/** Samples product ranks 0..n-1 with weight 1/(rank+1)^s (Zipf). */
export const zipf = (n: number, s: number) => {
  const cumulative = new Float64Array(n)
  let sum = 0
  for (let i = 0; i < n; i++) {
    sum += 1 / (i + 1) ** s
    cumulative[i] = sum
  }
  return (r: Rng): number => {
    const x = r.next() * sum
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

// ---- addresses -----------------------------------------------------------------

/** Residential IPv6 providers: each a /32, its subscribers a /56 each. */
const PROVIDERS = 40

/** A subscriber's address: half IPv4 (anywhere in 11-99.x.x.x), half IPv6 (a /56 of one of the providers' /32s). */
export const residentialAddress = (r: Rng): string => {
  if (r.next() < 0.5) return `${r.int(11, 99)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`
  const provider = (0x2a10 + r.int(0, PROVIDERS - 1)).toString(16)
  return `${provider}:${r.int(0, 0xffff).toString(16)}:${r.int(0, 0xff).toString(16)}00::${r.int(1, 0xffff).toString(16)}`
}

// ---- the schedule ----------------------------------------------------------------

/** Who a benign vote comes from: a registered agent (by index) or an anonymous address. */
export type BenignGroup = "agents" | "visitors" | "viral fans" | "newsletter readers"

export type Event =
  | { readonly kind: "register"; readonly at: number; readonly agent: number }
  | {
      readonly kind: "vote"
      readonly at: number
      readonly product: number
      readonly direction: "up" | "down"
      /** An agent's index, or -1 for an anonymous vote from `address`. */
      readonly agent: number
      readonly address: string
      /** The benign group, or the attack, the vote belongs to. */
      readonly group: string
    }

export interface WorldSettings {
  readonly seed: number
  readonly days: number
  readonly products: number
  readonly agents: number
  readonly visitors: number
  /** Median votes of an agent over the month. */
  readonly agentVotes: number
  readonly virals: number
  readonly fansPerViral: number
  readonly newsletters: number
}

/** A registered agent of the world: where it registers from, when. */
export interface WorldAgent {
  readonly address: string
  readonly registersAt: number
  readonly group: string
}

export interface World {
  readonly start: number
  readonly end: number
  /** Each product's quality: the chance a voter votes it up. */
  readonly quality: Float64Array
  readonly agents: Array<WorldAgent>
  readonly events: Array<Event>
}

/**
 * The benign month. Agents register over the month (a third in its first two days) and vote a
 * lognormal number of distinct products at daily-cycle times; visitors vote 1-15 products in one
 * sitting; a viral product gets `fansPerViral` votes in about six hours (a third from established
 * agents, a third from agents registering for it, a third anonymous); each newsletter's readers vote
 * up the product it features every three days, within hours.
 */
export const benignWorld = (settings: WorldSettings, start: number): World => {
  const r = seeded(settings.seed)
  const d = draws(r)
  const end = start + settings.days * DAY
  const popular = zipf(settings.products, 0.9)
  const quality = Float64Array.from({ length: settings.products }, () => 0.55 + 0.43 * r.next())
  const agents: Array<WorldAgent> = []
  const events: Array<Event> = []
  const vote = (at: number, product: number, agent: number, address: string, group: string, direction?: "up" | "down") =>
    events.push({
      kind: "vote",
      at,
      product,
      agent,
      address,
      group,
      direction: direction ?? (r.next() < quality[product]! ? "up" : "down")
    })
  const newAgent = (registersAt: number, group: string): number => {
    const address = residentialAddress(r)
    agents.push({ address, registersAt, group })
    events.push({ kind: "register", at: registersAt, agent: agents.length - 1 })
    return agents.length - 1
  }

  for (let i = 0; i < settings.agents; i++) {
    const registersAt = r.next() < 0.33 ? dailyTime(r, start, start + 2 * DAY) : dailyTime(r, start + 2 * DAY, end - 3 * DAY)
    const agent = newAgent(registersAt, "agents")
    const count = Math.min(400, Math.max(1, Math.round(d.lognormal(settings.agentVotes, 1))))
    const chosen = new Set<number>()
    for (let k = 0; k < count * 3 && chosen.size < count; k++) chosen.add(popular(r))
    for (const product of chosen) vote(dailyTime(r, registersAt + 60_000, end), product, agent, agents[agent]!.address, "agents")
  }

  for (let i = 0; i < settings.visitors; i++) {
    const address = residentialAddress(r)
    const sitting = dailyTime(r, start, end - 3 * HOUR)
    const count = r.int(1, 15)
    const chosen = new Set<number>()
    for (let k = 0; k < count; k++) chosen.add(popular(r))
    for (const product of chosen) vote(sitting + r.next() * 2 * HOUR, product, -1, address, "visitors")
  }

  // Viral products: mid-catalog products that suddenly everyone votes for.
  const established = () => {
    for (;;) {
      const a = r.int(0, settings.agents - 1)
      if (agents[a]!.group === "agents" && agents[a]!.registersAt < start + 2 * DAY) return a
    }
  }
  for (let v = 0; v < settings.virals; v++) {
    const product = 1_000 + v * 97
    const from = start + (6 + Math.floor(((settings.days - 9) * (v + 1)) / (settings.virals + 1))) * DAY + 14 * HOUR
    const fanVotes = new Set<number>()
    for (let f = 0; f < settings.fansPerViral; f++) {
      const at = from + Math.min(d.exponential(2 * HOUR), 48 * HOUR)
      const kind = r.next()
      if (kind < 0.34) {
        const agent = established()
        if (fanVotes.has(agent)) continue
        fanVotes.add(agent)
        vote(at, product, agent, agents[agent]!.address, "viral fans", "up")
      } else if (kind < 0.67) {
        const agent = newAgent(at - r.int(60_000, 600_000), "viral fans")
        vote(at, product, agent, agents[agent]!.address, "viral fans", "up")
      } else {
        vote(at, product, -1, residentialAddress(r), "viral fans", "up")
      }
    }
  }

  // Newsletters: established readers voting up what was featured, each on their own time.
  for (let n = 0; n < settings.newsletters; n++) {
    const readers = Array.from({ length: r.int(30, 120) }, established)
    for (let at = start + (3 + (n % 3)) * DAY + 9 * HOUR; at < end - DAY; at += 3 * DAY) {
      const featured = r.int(200, settings.products - 1)
      for (const reader of new Set(readers)) {
        if (r.next() < 0.6) vote(at + d.exponential(3 * HOUR), featured, reader, agents[reader]!.address, "newsletter readers", "up")
      }
    }
  }

  return { start, end, quality, agents, events }
}

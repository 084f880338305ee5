/**
 * What it costs to move a score (docs/threat-model.md, "What an attacker can still buy"): for each kind of
 * identity an attacker can come by, the fewest that move a product's judged score by 5 points, before any pass
 * and after one. Each trial is a directory of its own (the memory store, synthetic time) with a little benign
 * traffic, the attack sent through the use cases the API runs (Agents.register, Directory.vote), and the
 * integrity pass as productdir-reconcile runs it. The fewest is found by doubling, then halving: a move is
 * monotone in the number of identities for every kind here (one more vote of the attack never moves the score
 * back), so the search finds the threshold.
 */
import { Clock, Effect } from "effect"
import { type AgentId, CatalogStore, fromImportRecord, type ProductId, trustScore } from "@productdir/domain"
import { generateRecord, seeded } from "@productdir/fixtures"
import * as MemoryStore from "@productdir/store-memory"
import { Agents, Directory, IntegrityPass, VoterIdentity } from "@productdir/usecases"
import { syntheticClock } from "./clock.ts"
import { useCases } from "./simulation.ts"
import { DAY, HOUR } from "./world.ts"

/** What an attacker sends: who, of what age and history, and how fast. */
export interface Attacker {
  readonly name: string
  /** Its identities' age and history, in words. */
  readonly identities: string
  /** Agents (registered), or anonymous addresses. */
  readonly agents: boolean
  /** Days between registering and attacking; a benign vote on each of `history` other products in between. */
  readonly ageDays: number
  readonly history: number
  /** Milliseconds between two identities' votes: 0, all within a minute (a burst); else a drip. */
  readonly spacingMs: number
  /** Products each identity pushes the same way (the target and others beside it): a ring's shape. */
  readonly products: number
}

export interface Target {
  readonly name: string
  readonly seed: { readonly up: number; readonly down: number }
  readonly direction: "up" | "down"
}

export const ATTACKERS: ReadonlyArray<Attacker> = [
  {
    name: "anonymous flood",
    identities: "network addresses, each in its own /16",
    agents: false,
    ageDays: 0,
    history: 0,
    spacingMs: 0,
    products: 1
  },
  {
    name: "anonymous drip",
    identities: "network addresses, each in its own /16, one every 15 minutes",
    agents: false,
    ageDays: 0,
    history: 0,
    spacingMs: 15 * 60_000,
    products: 1
  },
  {
    name: "fresh agents",
    identities: "agents registered minutes before, each from its own /32",
    agents: true,
    ageDays: 0,
    history: 0,
    spacingMs: 0,
    products: 1
  },
  {
    name: "agents with standing",
    identities: "agents a week old with 3 benign votes each (the standing the pass gives), each from its own /32",
    agents: true,
    ageDays: 7,
    history: 3,
    spacingMs: 0,
    products: 1
  },
  {
    name: "rings with standing",
    identities: "the same agents with standing, each pushing the target and 2 more products together",
    agents: true,
    ageDays: 7,
    history: 3,
    spacingMs: 0,
    products: 3
  }
]

export const TARGETS: ReadonlyArray<Target> = [
  { name: "a product nobody voted on, pushed up", seed: { up: 0, down: 0 }, direction: "up" },
  { name: "a product of 100 votes at 90 %, pulled down", seed: { up: 90, down: 10 }, direction: "down" },
  { name: "a product of 1,000 votes at 90 %, pulled down", seed: { up: 900, down: 100 }, direction: "down" }
]

const productId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}` as ProductId
/** An address of its own /16 (IPv4) or /32 (IPv6) for identity `i` of a trial; benign ones from other ranges. */
const attackerV4 = (i: number) => `${100 + (i >> 8)}.${i & 255}.7.9`
const attackerV6 = (i: number) => `2a0${(i >> 12) & 7}:${(0x1000 + (i & 0xfff)).toString(16)}::1`
const START = Date.UTC(2026, 0, 5)
const BENIGN = 200
const VISITORS = 300
const PRODUCTS = 40

/** How many points `attacker` moves `target` with `n` identities: before any pass, and after one. */
export const trial = (attacker: Attacker, target: Target, n: number) =>
  Effect.gen(function* () {
    const clock = syntheticClock(START, yield* Clock.Clock)
    const program = Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const directory = yield* Directory.Directory
      const agents = yield* Agents.Agents
      const identity = yield* VoterIdentity.VoterIdentity
      const r = seeded(58)
      const template = fromImportRecord(generateRecord(58, 0), productId(0)).input.content
      // The target (product 0) and the catalog benign voters vote: each with a seed of 20 votes at 80 %.
      yield* catalog.upsert(
        Array.from({ length: PRODUCTS }, (_, k) => ({
          id: productId(k),
          content: { ...template, name: `Product ${k}` },
          seed: k === 0 ? target.seed : { up: 16, down: 4 }
        }))
      )
      const vote = (product: number, direction: "up" | "down", address: string, agent?: AgentId) =>
        directory.vote({ entity_id: productId(product), direction }, identity.caster({ address, agent }))
      const register = (name: string, address: string) =>
        Effect.map(agents.register({ name }, address), (r) => (r._tag === "Registered" ? r.agent.id : undefined))
      // A week of benign traffic: 200 agents, 3 votes each on products 1..39 over days 0-6, and the passes.
      const benign: Array<AgentId | undefined> = []
      for (let i = 0; i < BENIGN; i++) {
        clock.set(START + (i * HOUR) / 10)
        benign.push(yield* register(`benign-${i}`, `20.${i}.1.1`))
      }
      const attackAt = START + 8 * DAY
      // The attacker's agents, registered `ageDays` before, with their history.
      const attackers: Array<AgentId | undefined> = []
      if (attacker.agents) {
        for (let i = 0; i < n; i++) {
          clock.set(Math.max(clock.now(), attackAt - attacker.ageDays * DAY - HOUR + i))
          attackers.push(yield* register(`attacker-${i}`, attackerV6(i)))
        }
      }
      const schedule: Array<{ at: number; run: Effect.Effect<unknown, unknown> }> = []
      for (let i = 0; i < BENIGN; i++) {
        for (let k = 0; k < 3; k++) {
          const at = START + 2 * HOUR + r.next() * 6 * DAY
          schedule.push({ at, run: vote(1 + r.int(0, PRODUCTS - 2), r.next() < 0.8 ? "up" : "down", `20.${i}.1.1`, benign[i]) })
        }
      }
      // And anonymous visitors, each voting 2-5 products in one sitting over the week (an address with a history).
      for (let i = 0; i < VISITORS; i++) {
        const sitting = START + 2 * HOUR + r.next() * 7 * DAY
        const products = new Set(Array.from({ length: r.int(2, 5) }, () => 1 + r.int(0, PRODUCTS - 2)))
        for (const product of products) {
          schedule.push({ at: sitting + r.next() * HOUR, run: vote(product, r.next() < 0.8 ? "up" : "down", `30.${i >> 8}.${i & 255}.1`) })
        }
      }
      for (let i = 0; i < n && attacker.history > 0; i++) {
        for (let k = 0; k < attacker.history; k++) {
          const at = attackAt - attacker.ageDays * DAY + HOUR + r.next() * 2 * DAY
          schedule.push({ at, run: vote(1 + r.int(0, 9), "up", attackerV6(i), attackers[i]) })
        }
      }
      schedule.sort((a, b) => a.at - b.at)
      let nextPass = START + DAY
      for (const event of schedule) {
        while (event.at >= nextPass) {
          clock.set(nextPass)
          yield* IntegrityPass.runPass({ apply: true })
          nextPass += DAY
        }
        clock.set(event.at)
        yield* event.run
      }
      while (nextPass < attackAt) {
        clock.set(nextPass)
        yield* IntegrityPass.runPass({ apply: true })
        nextPass += DAY
      }
      const score = Effect.map(catalog.find(productId(0)), (p) => trustScore(p.weighted))
      const before = yield* score
      // The attack: each identity votes the target (and a ring's other products) the attack's way.
      for (let i = 0; i < n; i++) {
        clock.set(attackAt + (attacker.spacingMs === 0 ? (i * 60_000) / Math.max(1, n) : i * attacker.spacingMs))
        const address = attacker.agents ? attackerV6(i) : attackerV4(i)
        if (attacker.agents && attackers[i] === undefined) continue
        for (let k = 0; k < attacker.products; k++) {
          yield* vote(k === 0 ? 0 : PRODUCTS - k, target.direction, address, attacker.agents ? attackers[i] : undefined)
        }
      }
      const moved = (after: number) => (target.direction === "up" ? after - before : before - after)
      const atOnce = moved(yield* score)
      clock.set(clock.now() + HOUR)
      yield* IntegrityPass.runPass({ apply: true })
      const afterPass = moved(yield* score)
      return { atOnce, afterPass }
    })
    return yield* program.pipe(Effect.provide(useCases(MemoryStore.layer)), Effect.provideService(Clock.Clock, clock))
  })

/** The fewest identities (up to `max`) whose move, read by `pick`, is 5 points or more; undefined when none up to `max` does. */
export const fewest = (attacker: Attacker, target: Target, pick: (m: { atOnce: number; afterPass: number }) => number, max: number) =>
  Effect.gen(function* () {
    const reaches = (n: number) => Effect.map(trial(attacker, target, n), (m) => pick(m) >= 5)
    let low = 0
    let high = 1
    while (!(yield* reaches(high))) {
      low = high
      if (high >= max) return undefined
      high = Math.min(max, high * 2)
    }
    while (high - low > Math.max(1, Math.floor(low / 20))) {
      const middle = Math.floor((low + high) / 2)
      if (yield* reaches(middle)) high = middle
      else low = middle
    }
    return high
  })

/**
 * The integrity pass (src/integrity/) on small ledgers built vote by vote, in synthetic time: what it
 * discounts, what it counts, what it leaves, and that it is deterministic and idempotent. The store
 * is the in-memory one; the store contract (packages/testkit, "integrity ledger") holds every store
 * to the same reads and writes, and apps/reconcile runs the pass on PostgreSQL.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import {
  type AgentId,
  agentLedgerKey,
  AgentRegistry,
  addressVoter,
  agentVoter,
  type BurstGuard,
  DEFAULT_BURST_GUARD,
  CatalogStore,
  fromImportRecord,
  IntegrityLedger,
  type ProductId,
  VoteLedger,
  type LedgerFormation,
  trustScore
} from "@productdir/domain"
import { generateRecord, seeded } from "@productdir/fixtures"
import { layerWithState } from "@productdir/store-memory/testing"
import { IntegrityPass } from "../src/index.ts"
import { DEFAULT_DISCOUNT_BAR } from "../src/integrity/IntegrityPass.ts"

/** A formation's counts (its weights are the judgement's: packages/domain/test/trust.test.ts, the store contract). */
const countsOf = ({ byWeight: _, heldBy: __, ...counts }: LedgerFormation) => counts

const HOUR = 3_600_000
const DAY = 24 * HOUR
const GUARD: BurstGuard = DEFAULT_BURST_GUARD

const content = fromImportRecord(generateRecord(1, 1), "00000000-0000-4000-8000-000000000001" as ProductId).input.content
const productId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}` as ProductId
const agentId = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, "0")}` as AgentId

/** One vote of a scenario: who, on which product, when (ms after the start), from which neighbourhood. */
interface Ballot {
  readonly at: number
  readonly product: number
  readonly voter: { readonly agent: number } | { readonly address: string }
  readonly network: string
  readonly direction?: "up" | "down"
}

/** Products 1..n, seeded 50/10 (a product with history, as an import brings). */
const catalog = (n: number) =>
  CatalogStore.use((s) =>
    s.upsert(
      Array.from({ length: n }, (_, i) => ({
        id: productId(i + 1),
        content: { ...content, name: `P${i + 1}` },
        seed: { up: 50, down: 10 }
      }))
    )
  )

const register = (agents: ReadonlyArray<number>) =>
  Effect.forEach(agents, (n) =>
    AgentRegistry.use((r) =>
      r.register({ id: agentId(n), name: `agent ${n}`, contact: null, keyHash: `hash-${n}`, keyHint: `pd_…${n}`, registeredFrom: null })
    )
  )

/** Casts the ballots in time order, moving the clock to each; with the burst guard on. */
const cast = (ballots: ReadonlyArray<Ballot>) =>
  Effect.gen(function* () {
    const ledger = yield* VoteLedger
    for (const b of [...ballots].sort((x, y) => x.at - y.at)) {
      yield* TestClock.setTime(b.at)
      yield* ledger.cast({
        entity: productId(b.product),
        voter: "agent" in b.voter ? agentVoter(agentId(b.voter.agent)) : addressVoter(b.voter.address),
        direction: b.direction ?? "up",
        network: b.network,
        guard: GUARD
      })
    }
  })

const countersOf = (n: number) =>
  Effect.map(
    CatalogStore.use((s) => s.find(productId(n))),
    (p) => p.counters
  )

/** Benign agents `from..to`: each votes `perAgent` products of its own choice among `products`, at its own times over `days`. */
const benign = (seed: number, from: number, to: number, products: ReadonlyArray<number>, perAgent: number, days: number): Array<Ballot> => {
  const random = seeded(seed)
  const ballots: Array<Ballot> = []
  for (let agent = from; agent <= to; agent++) {
    const chosen = new Set<number>()
    while (chosen.size < perAgent) chosen.add(random.pick(products))
    for (const product of chosen) {
      ballots.push({ at: random.int(0, days * DAY), product, voter: { agent }, network: `net-${agent}` })
    }
  }
  return ballots
}

/** A ring: agents `from..to` vote up each of `products` within `spreadMs` of that product's moment. */
const ring = (seed: number, from: number, to: number, products: ReadonlyArray<number>, start: number, spreadMs: number): Array<Ballot> => {
  const random = seeded(seed)
  return products.flatMap((product, k) =>
    Array.from({ length: to - from + 1 }, (_, i) => ({
      at: start + k * 5 * 60_000 + random.int(0, spreadMs),
      product,
      voter: { agent: from + i },
      network: `ring-net-${from + i}`
    }))
  )
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

const pass = (apply: boolean) => IntegrityPass.runPass({ apply })

describe("the integrity pass", () => {
  it.effect("finds a fast ring, discounts exactly its votes and recounts its products; benign voters keep every vote", () =>
    Effect.gen(function* () {
      yield* catalog(40)
      yield* register(range(1, 113))
      // 100 benign agents over 5 days on products 1..40; a ring of 12 votes up products 31..36 within two minutes
      // each; a bystander votes on product 31 just after the ring, in its burst, and waits.
      const fair = benign(1, 1, 100, range(1, 40), 3, 5)
      const rigged = ring(2, 101, 112, range(31, 36), 2 * DAY, 120_000)
      const bystander: Ballot = { at: 2 * DAY + 150_000, product: 31, voter: { agent: 113 }, network: "bystander" }
      yield* cast([...fair, ...rigged, bystander])
      assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(31)).pipe(Effect.map(countsOf)))).held, 3)
      yield* TestClock.setTime(6 * DAY)

      const report = yield* pass(true)
      assert.strictEqual(report.groups.length, 1)
      const [group] = yield* IntegrityLedger.use((l) => l.groups)
      assert.deepStrictEqual(
        group!.evidence.members,
        range(101, 112)
          .map((n) => agentLedgerKey(agentId(n)))
          .sort()
      )
      assert.deepStrictEqual([...group!.evidence.products], range(31, 36).map(productId))
      assert.strictEqual(group!.status, "suspected")
      assert.strictEqual(report.discounted, rigged.length)
      // Without the ring's votes there was no burst: the bystander's vote counts.
      assert.strictEqual(report.released, 1)
      // The ring's 12 up votes no longer count (the first 10 had, the last 2 waited); the benign ones still do.
      const fairOn31 = fair.filter((b) => b.product === 31).length + 1
      assert.deepStrictEqual(yield* countersOf(31), { up: 50 + fairOn31, down: 10 })
      const formation = yield* VoteLedger.use((l) => l.formation(productId(31)).pipe(Effect.map(countsOf)))
      assert.deepStrictEqual(formation, { agents: { up: fairOn31, down: 0 }, addresses: { up: 0, down: 0 }, held: 0, discounted: 12 })
      // Its evidence says when, and from where.
      assert.strictEqual(group!.evidence.windows.length, 6)
      assert.strictEqual(group!.evidence.networks.length, 12)

      // A second pass over the same ledger changes nothing, and knows the group by the same id.
      const again = yield* pass(true)
      assert.deepStrictEqual([again.discounted, again.released, again.recounted], [0, 0, 0])
      assert.deepStrictEqual(
        again.groups.map((g) => [g.id, g.known]),
        [[group!.id, true]]
      )
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("checking reports what the pass would do and writes nothing", () =>
    Effect.gen(function* () {
      yield* catalog(40)
      yield* register(range(1, 112))
      yield* cast([...benign(3, 1, 100, range(1, 40), 3, 5), ...ring(4, 101, 112, range(31, 36), 2 * DAY, 120_000)])
      yield* TestClock.setTime(6 * DAY)
      const before = yield* Effect.forEach(range(1, 40), countersOf)

      const checked = yield* pass(false)
      assert.deepStrictEqual([checked.applied, checked.groups.length, checked.discounted], [false, 1, 72])
      assert.deepStrictEqual(yield* Effect.forEach(range(1, 40), countersOf), before)
      assert.deepStrictEqual(yield* IntegrityLedger.use((l) => l.groups), [])
      // Applied, it does what it said.
      const applied = yield* pass(true)
      assert.deepStrictEqual([applied.groups[0]!.id, applied.discounted], [checked.groups[0]!.id, 72])
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("finds a slow ring that spreads its votes over a week, by the voters its products share", () =>
    Effect.gen(function* () {
      yield* catalog(60)
      yield* register(range(1, 215))
      const random = seeded(5)
      // 15 agents vote products 51..56, each vote at its own random time in 7 days, plus 3 random camouflage votes each.
      const slow: Array<Ballot> = range(201, 215).flatMap((agent) => [
        ...range(51, 56).map((product) => ({ at: random.int(0, 7 * DAY), product, voter: { agent }, network: `slow-${agent}` })),
        ...range(1, 3).map((k) => ({
          at: random.int(0, 7 * DAY),
          product: k * 10 + (agent % 7),
          voter: { agent },
          network: `slow-${agent}`
        }))
      ])
      const fair = benign(6, 1, 150, range(1, 60), 3, 7)
      yield* cast([...fair, ...slow])
      yield* TestClock.setTime(7 * DAY + HOUR)

      const report = yield* pass(true)
      assert.strictEqual(report.groups.length, 1)
      assert.strictEqual(report.groups[0]!.method, "overlap")
      assert.strictEqual(report.groups[0]!.members, 15)
      // Every ring vote on its targets is discounted; its camouflage is not what it is caught by, and counts.
      const formation = yield* Effect.forEach(range(51, 56), (n) =>
        VoteLedger.use((l) => l.formation(productId(n)).pipe(Effect.map(countsOf)))
      )
      assert.deepStrictEqual(
        formation.map((f) => f.discounted),
        range(51, 56).map(() => 15)
      )
      assert.strictEqual(report.discounted, 90)
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect(
    "a viral product's fans are counted after the pass, and a farm of agents from two networks at what it weighs; a flood of addresses stays held",
    () =>
      Effect.gen(function* () {
        yield* catalog(3)
        yield* register(range(1, 200))
        const random = seeded(7)
        // Product 1 goes viral: 150 agents from 150 networks in two hours. Product 2: 120 addresses of one /48
        // in an hour. Product 3: 50 agents registered from two networks, in an hour.
        const fans = range(1, 150).map((agent) => ({
          at: DAY + random.int(0, 2 * HOUR),
          product: 1,
          voter: { agent },
          network: `home-${agent}`
        }))
        const flood = range(1, 120).map((n) => ({
          at: DAY + random.int(0, HOUR),
          product: 2,
          voter: { address: `flood-${n}` },
          network: "one-48",
          direction: "down" as const
        }))
        const farm = range(151, 200).map((agent) => ({
          at: DAY + random.int(0, HOUR),
          product: 3,
          voter: { agent },
          network: `farm-${agent % 2}`,
          direction: "down" as const
        }))
        yield* cast([...fans, ...flood, ...farm])
        const held = yield* Effect.forEach([1, 2, 3], (n) => VoteLedger.use((l) => l.formation(productId(n)).pipe(Effect.map(countsOf))))
        // Past the floor, each burst waits: no counter moved beyond the first handful.
        assert.deepStrictEqual(
          held.map((f) => f.agents.up + f.agents.down + f.addresses.up + f.addresses.down),
          [11, 10, 11]
        )
        yield* TestClock.setTime(DAY + 3 * HOUR)

        const report = yield* pass(true)
        assert.deepStrictEqual(report.groups, [])
        const after = yield* Effect.forEach([1, 2, 3], (n) => VoteLedger.use((l) => l.formation(productId(n)).pipe(Effect.map(countsOf))))
        assert.deepStrictEqual(after[0], { agents: { up: 150, down: 0 }, addresses: { up: 0, down: 0 }, held: 0, discounted: 0 })
        assert.deepStrictEqual(after[1]!.held, held[1]!.held)
        // A burst no group explains is what its agents say, however few networks they came from: the farm counts, and
        // moves its product's judgement by what fifty fresh agents weigh (1.25 votes' worth), two points.
        assert.deepStrictEqual([after[2]!.held, after[2]!.agents.down], [0, 50])
        assert.deepStrictEqual(yield* countersOf(1), { up: 200, down: 10 })
        assert.deepStrictEqual(yield* countersOf(2), { up: 50, down: 10 + 120 - held[1]!.held })
        const judged = (n: number) =>
          Effect.map(
            CatalogStore.use((s) => s.find(productId(n))),
            (p) => trustScore(p.weighted)
          )
        // Seed 50/10 is judged 79; the flood's first ten addresses (a tenth of a vote's worth) take it to 78.
        assert.deepStrictEqual([yield* judged(2), yield* judged(3)], [78, 77])
        assert.strictEqual(report.released, held[0]!.held + held[2]!.held)
      }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a burst its established voters take part in counts: standing is earned by age and settled votes, and lost in a group", () =>
    Effect.gen(function* () {
      yield* catalog(40)
      yield* register(range(1, 112))
      // Days 0..3: 100 agents vote 3 products each; at day 5 the pass gives standing to those with 3 settled counted votes.
      yield* cast([...benign(8, 1, 100, range(1, 30), 3, 3), ...ring(9, 101, 112, range(31, 36), 2 * DAY, 120_000)])
      yield* TestClock.setTime(5 * DAY)
      const first = yield* pass(true)
      assert.strictEqual(first.standing, 100)
      const registry = yield* AgentRegistry
      assert.isNotNull((yield* registry.find(agentId(1))).standingSince)
      assert.isNull((yield* registry.find(agentId(101))).standingSince)

      // A burst on product 40: 60 votes in an hour, half of them from agents with standing. They count at once
      // (standing), the rest wait, and the pass counts them: the burst is what established voters say it is.
      const random = seeded(10)
      yield* cast(
        range(1, 60).map((n) => ({
          at: 5 * DAY + random.int(0, HOUR),
          product: 40,
          voter: n <= 30 ? { agent: n } : { address: `walk-in-${n}` },
          network: `walk-in-net-${n}`
        }))
      )
      const during = yield* VoteLedger.use((l) => l.formation(productId(40)).pipe(Effect.map(countsOf)))
      assert.strictEqual(during.agents.up, 30)
      assert.isAbove(during.held, 0)
      yield* TestClock.setTime(5 * DAY + 2 * HOUR)
      yield* pass(true)
      assert.deepStrictEqual(yield* VoteLedger.use((l) => l.formation(productId(40)).pipe(Effect.map(countsOf))), {
        agents: { up: 30, down: 0 },
        addresses: { up: 30, down: 0 },
        held: 0,
        discounted: 0
      })
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect(
    "voters with standing turning on a product together wait until later votes of others agree: sleepers stay held, a fault counts",
    () =>
      Effect.gen(function* () {
        yield* catalog(40)
        yield* register(range(1, 100))
        // Days 0..3: 100 agents vote 3 products each; the pass of day 5 gives them standing.
        yield* cast(benign(13, 1, 100, range(1, 30), 3, 3))
        yield* TestClock.setTime(5 * DAY)
        assert.strictEqual((yield* pass(true)).standing, 100)

        // Day 6: agents 1..30 turn on product 39 within three minutes (sleepers); agents 31..60 on product 40 (users who
        // found a fault). Both products' votes had settled up (50/10): past the reversal's floor, both bursts wait.
        const random = seeded(14)
        const turn = (product: number, from: number): Array<Ballot> =>
          range(from, from + 29).map((agent) => ({
            at: 6 * DAY + random.int(0, 180_000),
            product,
            voter: { agent },
            network: `home-${agent}`,
            direction: "down"
          }))
        yield* cast([...turn(39, 1), ...turn(40, 31)])
        const heldOn = (n: number) => VoteLedger.use((l) => l.formation(productId(n)))
        for (const n of [39, 40]) {
          const formation = yield* heldOn(n)
          assert.deepStrictEqual([formation.held, formation.heldBy.reversal], [25, 25])
        }
        yield* TestClock.setTime(6 * DAY + 2 * HOUR)
        yield* pass(true)
        // No later vote yet: nothing counts them.
        assert.deepStrictEqual([(yield* heldOn(39)).held, (yield* heldOn(40)).held], [25, 25])
        assert.deepStrictEqual(yield* countersOf(39), { up: 50, down: 15 })

        // Later, one vote each half hour: product 39's usual voters vote it up, product 40's next voters down.
        yield* cast([
          ...range(61, 80).map((agent, k) => ({
            at: 6 * DAY + 3 * HOUR + k * 1_800_000,
            product: 39,
            voter: { agent },
            network: `home-${agent}`
          })),
          ...range(81, 90).map((agent, k) => ({
            at: 6 * DAY + 3 * HOUR + k * 1_800_000,
            product: 40,
            voter: { agent },
            network: `home-${agent}`,
            direction: "down" as const
          }))
        ])
        yield* TestClock.setTime(6 * DAY + 15 * HOUR)
        yield* pass(true)
        // The sleepers' votes stay held; the fault's count, the others having found it too.
        assert.deepStrictEqual([(yield* heldOn(39)).held, (yield* heldOn(40)).held], [25, 0])
        assert.deepStrictEqual(yield* countersOf(39), { up: 70, down: 15 })
        assert.deepStrictEqual(yield* countersOf(40), { up: 50, down: 50 })
      }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a pass that gives standing judges again the bursts its new standing decides: a second pass has nothing left to count", () =>
    Effect.gen(function* () {
      yield* catalog(40)
      yield* register(range(1, 100))
      // Days 0..3: 100 agents vote 3 products each, settled votes that earn standing, but no pass has run yet.
      yield* cast(benign(11, 1, 100, range(1, 30), 3, 3))
      // Day 5: 60 of them vote product 40 within an hour, from two networks. Without standing their burst waits,
      // and from two networks it is no crowd of fans: judged before standing is settled, it stays held.
      const random = seeded(12)
      yield* cast(
        range(1, 60).map((n) => ({ at: 5 * DAY + random.int(0, HOUR), product: 40, voter: { agent: n }, network: `office-${n % 2}` }))
      )
      const during = yield* VoteLedger.use((l) => l.formation(productId(40)).pipe(Effect.map(countsOf)))
      assert.isAbove(during.held, 0)
      yield* TestClock.setTime(5 * DAY + 2 * HOUR)
      const first = yield* pass(true)
      // The pass gave them standing, and so the burst is what its established voters say it is: counted now.
      assert.strictEqual(first.standing, 100)
      assert.strictEqual(first.released, during.held)
      assert.deepStrictEqual(yield* VoteLedger.use((l) => l.formation(productId(40)).pipe(Effect.map(countsOf))), {
        agents: { up: 60, down: 0 },
        addresses: { up: 0, down: 0 },
        held: 0,
        discounted: 0
      })
      assert.deepStrictEqual(yield* countersOf(40), { up: 50 + 60, down: 10 })
      // Idempotent: the same ledger, passed again, changes nothing.
      const second = yield* pass(true)
      assert.deepInclude(second, { discounted: 0, released: 0, standing: 0, recounted: 0 })
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("an operator clears a group: its votes count again and no later pass discounts them; confirming discounts them again", () =>
    Effect.gen(function* () {
      yield* catalog(40)
      yield* register(range(1, 112))
      yield* cast([...benign(11, 1, 100, range(1, 40), 3, 5), ...ring(12, 101, 112, range(31, 36), 2 * DAY, 120_000)])
      yield* TestClock.setTime(6 * DAY)
      yield* pass(true)
      const integrity = yield* IntegrityLedger
      const [group] = yield* integrity.groups
      const discountedOn31 = yield* countersOf(31)

      const cleared = yield* integrity.decide(group!.id, "cleared", new Date(6 * DAY))
      assert.deepStrictEqual([cleared.changed, cleared.votes, cleared.recounted.length, cleared.group.status], [true, 72, 6, "cleared"])
      assert.deepStrictEqual(yield* countersOf(31), { up: discountedOn31.up + 12, down: discountedOn31.down })
      const next = yield* pass(true)
      assert.deepStrictEqual([next.discounted, next.recounted], [0, 0])
      assert.deepStrictEqual(yield* countersOf(31), { up: discountedOn31.up + 12, down: discountedOn31.down })
      // Deciding again what is already so changes nothing.
      assert.isFalse((yield* integrity.decide(group!.id, "cleared", new Date(6 * DAY))).changed)

      const confirmed = yield* integrity.decide(group!.id, "confirmed", new Date(6 * DAY))
      assert.deepStrictEqual([confirmed.votes, confirmed.group.status], [72, "confirmed"])
      assert.deepStrictEqual(yield* countersOf(31), discountedOn31)
      const unknown = yield* Effect.flip(integrity.decide("no-such-group", "cleared", new Date(6 * DAY)))
      assert.strictEqual(unknown._tag, "GroupNotFound")
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("is deterministic: the same ledger, built in another store, gives the same groups with the same ids", () =>
    Effect.gen(function* () {
      const run = Effect.gen(function* () {
        yield* TestClock.setTime(0)
        yield* catalog(40)
        yield* register(range(1, 124))
        yield* cast([
          ...benign(13, 1, 100, range(1, 40), 3, 5),
          ...ring(14, 101, 112, range(31, 36), 2 * DAY, 120_000),
          ...ring(15, 113, 124, range(21, 25), 3 * DAY, 300_000)
        ])
        yield* TestClock.setTime(6 * DAY)
        const report = yield* pass(true)
        return { report, groups: yield* IntegrityLedger.use((l) => l.groups) }
      })
      const one = yield* run.pipe(Effect.provide(Layer.fresh(layerWithState)))
      const two = yield* run.pipe(Effect.provide(Layer.fresh(layerWithState)))
      assert.strictEqual(one.report.groups.length, 2)
      assert.deepStrictEqual(two.report, one.report)
      assert.deepStrictEqual(two.groups, one.groups)
    })
  )

  it.effect("a flood of addresses stays held pass after pass, after its votes leave the window too (none leak out a floor at a time)", () =>
    Effect.gen(function* () {
      yield* catalog(2)
      // A week of quiet history on product 1, then 300 addresses vote it down within ten minutes.
      const history: Array<Ballot> = range(1, 40).map((k) => ({
        at: k * 4 * HOUR,
        product: 1,
        voter: { address: `old-${k}` },
        network: `n-${k}`
      }))
      const flood: Array<Ballot> = range(1, 300).map((k) => ({
        at: 7 * DAY + k * 2_000,
        product: 1,
        voter: { address: `flood-${k}` },
        network: `f-${k}`,
        direction: "down" as const
      }))
      yield* cast([...history, ...flood])
      const held = (yield* VoteLedger.use((l) => l.formation(productId(1)).pipe(Effect.map(countsOf)))).held
      assert.isAbove(held, 280)
      const counters = yield* countersOf(1)
      // The hourly pass, for twenty days: the flood's votes leave the eight-day window after eight.
      for (let hour = 1; hour <= 20 * 24; hour++) {
        yield* TestClock.setTime(7 * DAY + hour * HOUR)
        yield* pass(true)
      }
      assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(1)).pipe(Effect.map(countsOf)))).held, held)
      assert.deepStrictEqual(yield* countersOf(1), counters)
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect(
    "readers of one newsletter, established voters who vote some of its picks among many votes of their own, are listed for review, not discounted",
    () =>
      Effect.gen(function* () {
        yield* catalog(60)
        yield* register(range(1, 360))
        const random = seeded(9)
        // 60 agents vote 15 products of their own over eight days; every day a newsletter features a product
        // (41..48), and each reader votes it up with a chance of 0.7, within about two hours. 300 other agents, who
        // do not read it, vote 3 products each: a featured product is voted by a tenth of the directory's voters,
        // and by 70 % of the readers, which is no chance (in a directory of its readers alone, every featured product
        // would be as popular as its readers make it, and their voting it no sign of a group).
        const own = [...benign(10, 1, 60, range(1, 40), 15, 8), ...benign(12, 61, 360, range(1, 40), 3, 8)]
        const featured: Array<Ballot> = range(41, 48).flatMap((product, day) =>
          range(1, 60)
            .filter(() => random.next() < 0.7)
            .map((agent) => ({ at: day * DAY + 9 * HOUR + random.int(0, 2 * HOUR), product, voter: { agent }, network: `net-${agent}` }))
        )
        yield* cast([...own, ...featured])
        // The pass runs daily, as the job would: each held vote is judged while it is recent.
        for (let day = 1; day <= 8; day++) {
          yield* TestClock.setTime(day * DAY + 12 * HOUR)
          yield* pass(true)
        }
        yield* TestClock.setTime(8 * DAY + 13 * HOUR)

        const report = yield* pass(true)
        assert.isAbove(report.groups.length, 0)
        assert.isTrue(report.groups.every((g) => g.review))
        assert.strictEqual(report.discounted, 0)
        // Every reader's vote counts (those a burst held are counted by the pass: readers from everywhere).
        for (const product of range(41, 48)) {
          const formation = yield* VoteLedger.use((l) => l.formation(productId(product)).pipe(Effect.map(countsOf)))
          const cast = featured.filter((b) => b.product === product).length
          assert.deepStrictEqual([formation.agents.up, formation.held, formation.discounted], [cast, 0, 0])
        }
        const [group] = yield* IntegrityLedger.use((l) => l.groups)
        assert.strictEqual(group!.evidence.review, true)
        assert.isBelow(group!.evidence.focus!, DEFAULT_DISCOUNT_BAR.focus)
      }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a viral product's anonymous fans count too, when the pass runs while the burst goes on", () =>
    Effect.gen(function* () {
      yield* catalog(1)
      yield* register(range(1, 100))
      const random = seeded(11)
      // Over four hours: 100 new agents from 100 networks and 80 addresses vote product 1 up.
      const agents: Array<Ballot> = range(1, 100).map((agent) => ({
        at: DAY + random.int(0, 4 * HOUR),
        product: 1,
        voter: { agent },
        network: `home-${agent}`
      }))
      const addresses: Array<Ballot> = range(1, 80).map((n) => ({
        at: DAY + random.int(0, 4 * HOUR),
        product: 1,
        voter: { address: `fan-${n}` },
        network: `isp-${n}`
      }))
      const ballots = [...agents, ...addresses].sort((a, b) => a.at - b.at)
      // The hourly pass runs during the burst: the first one sees the agents of the first hour and counts them.
      for (let hour = 1; hour <= 6; hour++) {
        yield* cast(ballots.filter((b) => b.at >= DAY + (hour - 1) * HOUR && b.at < DAY + hour * HOUR))
        yield* TestClock.setTime(DAY + hour * HOUR)
        yield* pass(true)
      }
      const formation = yield* VoteLedger.use((l) => l.formation(productId(1)).pipe(Effect.map(countsOf)))
      assert.deepStrictEqual(formation, { agents: { up: 100, down: 0 }, addresses: { up: 80, down: 0 }, held: 0, discounted: 0 })
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a burst with the directory's usual mix of agents and addresses counts: a cold product's traffic, not a flood", () =>
    Effect.gen(function* () {
      yield* catalog(10)
      yield* register(range(1, 140))
      const random = seeded(31)
      // The directory's usual traffic on products 2..10 over six days: 100 agents and 150 addresses, three votes each.
      const agents = benign(31, 1, 100, range(2, 10), 3, 6)
      const visitors: Array<Ballot> = range(1, 150).flatMap((v) => {
        const chosen = new Set<number>()
        while (chosen.size < 3) chosen.add(random.int(2, 10))
        return [...chosen].map((product) => ({ at: random.int(0, 6 * DAY), product, voter: { address: `usual-${v}` }, network: `u-${v}` }))
      })
      // Day 6: product 1, which no vote had moved, gets 40 agents (40 networks) and 60 addresses within the hour.
      const burst: Array<Ballot> = range(1, 100).map((k) => ({
        at: 6 * DAY + random.int(0, HOUR),
        product: 1,
        voter: k <= 40 ? { agent: 100 + k } : { address: `new-fan-${k}` },
        network: `fan-${k}`
      }))
      yield* cast([...agents, ...visitors, ...burst])
      assert.isAbove((yield* VoteLedger.use((l) => l.formation(productId(1)).pipe(Effect.map(countsOf)))).held, 50)
      yield* TestClock.setTime(6 * DAY + 2 * HOUR)
      yield* pass(true)
      // Agents cast 40 % of it, under half, but about what they cast everywhere (45 %): all of it counts.
      assert.deepStrictEqual(yield* VoteLedger.use((l) => l.formation(productId(1)).pipe(Effect.map(countsOf))), {
        agents: { up: 40, down: 0 },
        addresses: { up: 60, down: 0 },
        held: 0,
        discounted: 0
      })
    }).pipe(Effect.provide(layerWithState))
  )

  /**
   * A world with agents and visitors with a history (each votes three products), where a drip votes product 30
   * up from a new address every two hours for five days: under every budget and burst floor, so each counts when
   * cast. Product 29 goes viral meanwhile, its anonymous fans voting nothing else, with its agents.
   */
  const dripWorld = (seed: number) => {
    const random = seeded(seed)
    const agents = benign(seed, 1, 100, range(1, 28), 3, 8)
    const visitors: Array<Ballot> = range(1, 200).flatMap((v) => {
      const at = random.int(0, 7 * DAY)
      const chosen = new Set<number>()
      while (chosen.size < 3) chosen.add(random.int(1, 28))
      return [...chosen].map((product) => ({
        at: at + random.int(0, HOUR),
        product,
        voter: { address: `visitor-${v}` },
        network: `v-${v}`
      }))
    })
    // Two visitors who vote only product 30, days before the drip: they are not its group.
    const early: Array<Ballot> = range(1, 2).map((k) => ({
      at: k * HOUR,
      product: 30,
      voter: { address: `early-${k}` },
      network: `e-${k}`
    }))
    const drip: Array<Ballot> = range(1, 60).map((k) => ({
      at: 2 * DAY + k * 2 * HOUR,
      product: 30,
      voter: { address: `drip-${k}` },
      network: `d-${k}`
    }))
    const viral: Array<Ballot> = range(1, 80).map((k) => ({
      at: 3 * DAY + random.int(0, 3 * HOUR),
      product: 29,
      voter: k <= 40 ? { agent: 100 + k } : { address: `fan-${k}` },
      network: `fan-net-${k}`
    }))
    return { agents, visitors, early, drip, viral }
  }

  it.effect(
    "an anonymous drip, addresses that vote one product one way and nothing else, is discounted; its product's other voters count",
    () =>
      Effect.gen(function* () {
        yield* catalog(30)
        yield* register(range(1, 140))
        const world = dripWorld(21)
        yield* cast([...world.agents, ...world.visitors, ...world.early, ...world.drip, ...world.viral])
        // Each drip vote counted when cast: a few an hour is no burst.
        assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(30)).pipe(Effect.map(countsOf)))).addresses.up, 62)
        yield* TestClock.setTime(7 * DAY + HOUR)

        const report = yield* pass(true)
        assert.deepStrictEqual(
          report.groups.map((g) => [g.method, g.members, g.products, g.review]),
          [["addresses", 60, 1, false]]
        )
        assert.strictEqual(report.discounted, 60)
        const [group] = yield* IntegrityLedger.use((l) => l.groups)
        assert.deepStrictEqual([...group!.evidence.products], [productId(30)])
        assert.deepStrictEqual(group!.evidence.windows, [
          { product: productId(30), from: new Date(2 * DAY + 2 * HOUR).toISOString(), to: new Date(2 * DAY + 120 * HOUR).toISOString() }
        ])
        assert.strictEqual(group!.evidence.networks.length, 60)
        // The two early visitors keep their votes, and the product is back where its own voters put it.
        assert.deepStrictEqual(yield* VoteLedger.use((l) => l.formation(productId(30)).pipe(Effect.map(countsOf))), {
          agents: { up: 0, down: 0 },
          addresses: { up: 2, down: 0 },
          held: 0,
          discounted: 60
        })
        assert.deepStrictEqual(yield* countersOf(30), { up: 52, down: 10 })
        // The viral product's anonymous fans vote nothing else either, but its agents vote with them: no group.
        const viral = yield* VoteLedger.use((l) => l.formation(productId(29)).pipe(Effect.map(countsOf)))
        assert.deepStrictEqual([viral.addresses.up + viral.agents.up + viral.held, viral.discounted], [80, 0])

        // The drip goes on after the pass: the next pass finds the same group, grown, by the same id.
        yield* cast(
          range(61, 70).map((k) => ({ at: 7 * DAY + k * 60_000, product: 30, voter: { address: `drip-${k}` }, network: `d-${k}` }))
        )
        yield* TestClock.setTime(7 * DAY + 3 * HOUR)
        const next = yield* pass(true)
        assert.deepStrictEqual(
          next.groups.map((g) => [g.id, g.known, g.members]),
          [[group!.id, true, 70]]
        )
        assert.strictEqual(next.discounted, 10)
        assert.deepStrictEqual(yield* countersOf(30), { up: 52, down: 10 })
      }).pipe(Effect.provide(layerWithState))
  )

  it.effect(
    "a flood of addresses that vote nothing else: the votes that counted are discounted, the held ones stay held, pass after pass; a visitor caught in it counts",
    () =>
      Effect.gen(function* () {
        yield* catalog(30)
        yield* register(range(1, 140))
        const world = dripWorld(24)
        // Day 3: 300 addresses vote product 30 down within ten minutes: the first ones count, the rest wait.
        const flood: Array<Ballot> = range(1, 300).map((k) => ({
          at: 3 * DAY + k * 2_000,
          product: 30,
          voter: { address: `flood-${k}` },
          network: `f-${k}`,
          direction: "down" as const
        }))
        // A visitor votes four products ten minutes before the flood, and product 30 down in the middle of it.
        const visitor: Array<Ballot> = [1, 2, 3, 4, 30].map((product) => ({
          at: product === 30 ? 3 * DAY + 300_000 : 3 * DAY - 600_000,
          product,
          voter: { address: "caught-in-it" },
          network: "c-1",
          direction: "down" as const
        }))
        yield* cast([...world.agents, ...world.visitors, ...world.early, ...flood, ...visitor])
        const before = yield* VoteLedger.use((l) => l.formation(productId(30)).pipe(Effect.map(countsOf)))
        const counted = before.addresses.down
        assert.isAbove(before.held, 280)
        // The hourly pass for nine days: none of the flood's held votes is counted as a bystander and then
        // discounted; the visitor's is counted as one, and stays counted when its other votes leave the window.
        for (let hour = 1; hour <= 9 * 24; hour++) {
          yield* TestClock.setTime(3 * DAY + hour * HOUR)
          yield* pass(true)
        }
        assert.deepStrictEqual(yield* VoteLedger.use((l) => l.formation(productId(30)).pipe(Effect.map(countsOf))), {
          agents: { up: 0, down: 0 },
          addresses: { up: 2, down: 1 },
          held: before.held - 1,
          discounted: counted
        })
        assert.deepStrictEqual(yield* countersOf(30), { up: 52, down: 11 })
      }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a young directory whose visitors mostly vote one product and nothing else: nothing is found, popular products included", () =>
    Effect.gen(function* () {
      yield* catalog(30)
      const random = seeded(23)
      // No agents. 1,500 visitors vote one product each, 300 vote three; product 30 is three times as popular
      // as the others with both kinds, and visitors like it.
      const pick = () => (random.next() < 3 / 32 ? 30 : random.int(1, 29))
      const single: Array<Ballot> = range(1, 1_500).map((v) => ({
        at: random.int(0, 7 * DAY),
        product: pick(),
        voter: { address: `one-${v}` },
        network: `o-${v}`
      }))
      const regulars: Array<Ballot> = range(1, 300).flatMap((v) => {
        const chosen = new Set<number>()
        while (chosen.size < 3) chosen.add(pick())
        const at = random.int(0, 7 * DAY)
        return [...chosen].map((product) => ({
          at: at + random.int(0, HOUR),
          product,
          voter: { address: `regular-${v}` },
          network: `r-${v}`
        }))
      })
      yield* cast([...single, ...regulars])
      assert.isAbove((yield* VoteLedger.use((l) => l.formation(productId(30)).pipe(Effect.map(countsOf)))).addresses.up, 100)
      yield* TestClock.setTime(7 * DAY + 2 * HOUR)
      const report = yield* pass(true)
      assert.deepStrictEqual([report.groups, report.discounted], [[], 0])
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("small rings are found: six agents pushing three products that hardly anyone else votes, within minutes", () =>
    Effect.gen(function* () {
      yield* catalog(60)
      yield* register(range(1, 224))
      // 200 benign agents over 5 days; 4 rings of 6 agents, each pushing 3 products of its own on day 3.
      const fair = benign(41, 1, 200, range(1, 40), 3, 5)
      const rings = range(0, 3).flatMap((k) =>
        ring(42 + k, 201 + 6 * k, 206 + 6 * k, range(41 + 3 * k, 43 + 3 * k), 3 * DAY + k * HOUR, 600_000)
      )
      yield* cast([...fair, ...rings])
      yield* TestClock.setTime(5 * DAY)
      const report = yield* pass(true)
      assert.deepStrictEqual(
        report.groups.map((g) => [g.method, g.members, g.products, g.review]),
        range(0, 3).map(() => ["lockstep", 6, 3, false])
      )
      assert.strictEqual(report.discounted, 4 * 6 * 3)
      // Their agents lose nothing they had (none had standing), and no benign vote is discounted.
      for (const product of range(1, 40)) assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(product)))).discounted, 0)
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a small group of established voters in step is listed for review, not discounted; fresh agents in the same step are", () =>
    Effect.gen(function* () {
      yield* catalog(60)
      yield* register(range(1, 206))
      // 200 benign agents over 3 days; the pass of day 5 gives them standing.
      yield* cast(benign(43, 1, 200, range(1, 40), 3, 3))
      yield* TestClock.setTime(5 * DAY)
      assert.strictEqual((yield* pass(true)).standing, 200)
      // Day 6: six of them vote three obscure products within minutes (readers of one newsletter); six agents
      // registered that day do the same on three others (a small ring).
      yield* cast([...ring(44, 1, 6, range(41, 43), 6 * DAY, 600_000), ...ring(45, 201, 206, range(44, 46), 6 * DAY + HOUR, 600_000)])
      yield* TestClock.setTime(6 * DAY + 3 * HOUR)
      const report = yield* pass(true)
      assert.deepStrictEqual(
        report.groups.map((g) => [g.method, g.members, g.products, g.review]),
        [
          ["lockstep", 6, 3, true],
          ["lockstep", 6, 3, false]
        ]
      )
      // The readers' votes count; the ring's do not.
      for (const product of range(41, 43)) assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(product)))).discounted, 0)
      for (const product of range(44, 46)) assert.strictEqual((yield* VoteLedger.use((l) => l.formation(productId(product)))).discounted, 6)
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a ring with the window to itself is found: a product no one else voted is its alone (a quiet week, a new directory)", () =>
    Effect.gen(function* () {
      yield* catalog(5)
      yield* register(range(1, 12))
      // Twelve agents vote up the same five products within minutes, and nobody else votes at all.
      yield* cast(ring(45, 1, 12, range(1, 5), DAY, 120_000))
      yield* TestClock.setTime(2 * DAY)
      const report = yield* pass(true)
      assert.deepStrictEqual(
        report.groups.map((g) => [g.method, g.members, g.products]),
        [["lockstep", 12, 5]]
      )
      assert.strictEqual(report.discounted, 60)
      assert.deepStrictEqual(yield* countersOf(3), { up: 50, down: 10 })
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("a ring pushing three products is found, however many it has", () =>
    Effect.gen(function* () {
      yield* catalog(60)
      yield* register(range(1, 140))
      const fair = benign(43, 1, 100, range(1, 40), 3, 5)
      const rigged = ring(44, 101, 140, range(51, 53), 2 * DAY, 900_000)
      yield* cast([...fair, ...rigged])
      yield* TestClock.setTime(4 * DAY)
      const report = yield* pass(true)
      assert.deepStrictEqual(
        report.groups.map((g) => [g.members, g.products, g.review]),
        [[40, 3, false]]
      )
      assert.strictEqual(report.discounted, 120)
    }).pipe(Effect.provide(layerWithState))
  )

  it.effect("the same votes in the same order give the same verdict whatever the voters' ids: groups, counted, held, discounted", () =>
    Effect.gen(function* () {
      // The agents of a scenario, numbered by the scenario; their ids drawn differently in each replay.
      const random = seeded(45)
      const fair = benign(46, 1, 150, range(1, 40), 4, 6)
      const camouflaged = range(151, 190).flatMap((agent) => [
        ...range(1, 10).map((k) => ({ at: random.int(DAY, 4 * DAY), product: k, voter: { agent }, network: `c-${agent}` })),
        ...range(51, 58).map((product) => ({ at: 4 * DAY + random.int(0, HOUR), product, voter: { agent }, network: `c-${agent}` }))
      ])
      const small = ring(47, 191, 196, range(45, 47), 5 * DAY, 300_000)
      const burst = range(197, 230).map((agent) => ({
        at: 5 * DAY + 2 * HOUR + random.int(0, 600_000),
        product: 44,
        voter: { agent },
        network: `b-${agent % 3}`
      }))
      const drip: Array<Ballot> = range(1, 40).map((n) => ({
        at: 2 * DAY + n * 900_000,
        product: 48,
        voter: { address: `drip-${n}` },
        network: `d-${n}`,
        direction: "down"
      }))
      const ballots: Array<Ballot> = [...fair, ...camouflaged, ...small, ...burst, ...drip]
      const replay = (idOf: (n: number) => AgentId) =>
        Effect.gen(function* () {
          yield* catalog(60)
          yield* Effect.forEach(range(1, 230), (n) =>
            AgentRegistry.use((r) =>
              r.register({
                id: idOf(n),
                name: `agent ${n}`,
                contact: null,
                keyHash: `hash-${n}`,
                keyHint: `pd_…${n}`,
                registeredFrom: null
              })
            )
          )
          const ledger = yield* VoteLedger
          for (const b of [...ballots].sort((x, y) => x.at - y.at)) {
            yield* TestClock.setTime(b.at)
            yield* ledger.cast({
              entity: productId(b.product),
              voter: "agent" in b.voter ? agentVoter(idOf(b.voter.agent)) : addressVoter(b.voter.address),
              direction: b.direction ?? "up",
              network: b.network,
              guard: GUARD
            })
          }
          yield* TestClock.setTime(6 * DAY + HOUR)
          const report = yield* pass(true)
          const nameOf = new Map(range(1, 230).map((n) => [agentLedgerKey(idOf(n)), `agent ${n}`]))
          const groups = (yield* IntegrityLedger.use((l) => l.groups))
            .map((g) => ({
              method: g.evidence.method,
              members: g.evidence.members.map((m) => nameOf.get(m) ?? "an address").sort(),
              products: [...g.evidence.products].sort(),
              review: g.evidence.review === true
            }))
            .sort((a, b) => (a.members.join() < b.members.join() ? -1 : 1))
          const formations = yield* Effect.forEach(range(1, 60), (n) => VoteLedger.use((l) => l.formation(productId(n))))
          return { discounted: report.discounted, released: report.released, groups, formations }
        }).pipe(Effect.provide(layerWithState))
      const inOrder = yield* replay(agentId)
      // Ids in the other order, and ids in no order at all: the window numbers voters by their keys.
      const reversed = yield* replay((n) => agentId(1_000 - n))
      const scrambled = yield* replay(
        (n) => `${((n * 7_919) % 9_973).toString(16).padStart(8, "0")}-0000-4000-9000-000000000000` as AgentId
      )
      assert.isAbove(inOrder.groups.length, 1)
      assert.deepStrictEqual(reversed, inOrder)
      assert.deepStrictEqual(scrambled, inOrder)
    })
  )
})

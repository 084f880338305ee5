/**
 * What the integrity pass reads from a store and writes back (packages/domain/src/ports/Integrity.ts): the
 * window as columns, a verdict applied (discounts, releases, recounts), an operator's decision, and
 * standing. The pass itself is tested in packages/usecases; these hold every store to the same
 * reads and writes. The store is shared with every other behaviour, so each looks only at its own
 * products and agents, and works far in the future (time 400 days on), after everything else.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import {
  type AgentId,
  agentLedgerKey,
  AgentRegistry,
  addressVoter,
  agentVoter,
  type BurstGuard,
  DEFAULT_BURST_GUARD,
  CatalogStore,
  COUNTED,
  DEFAULT_STANDING,
  HELD,
  IntegrityLedger,
  type LedgerWindow,
  ProblemStore,
  type ProductId,
  productOf,
  type Voter,
  type VoteKey,
  VoteLedger,
  votesIn
} from "@productdir/domain"
import { at } from "./clock.ts"
import { freshInput, rng, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const DAY = 86_400_000
const GUARD: BurstGuard = DEFAULT_BURST_GUARD

const newAgent = (name: string) =>
  AgentRegistry.use((r) =>
    r.register({ id: rng.uuid() as AgentId, name, contact: null, keyHash: `hash-${rng.uuid()}`, keyHint: "pdk_ring", registeredFrom: null })
  )

const countersOf = (id: string) =>
  Effect.map(
    CatalogStore.use((s) => s.find(id)),
    (p) => p.counters
  )

/** The window's votes on `products`, as plain rows sorted by product and voter. */
const rowsOn = (window: LedgerWindow, products: ReadonlyArray<ProductId>) => {
  const rows = []
  for (let i = 0; i < votesIn(window); i++) {
    const product = window.products[productOf(window, i)]!
    if (!products.includes(product)) continue
    rows.push({
      product,
      voter: window.voters[window.voter[i]!]!,
      network: window.networkOf(i) < 0 ? null : window.networks[window.networkOf(i)]!,
      at: window.since.getTime() + window.seconds[i]! * 1000,
      counting: window.counting[i]!,
      direction: window.direction[i]!,
      cleared: window.cleared[i]!,
      standing: window.standing[window.voter[i]!]!
    })
  }
  return rows.sort((a, b) => (a.product < b.product ? -1 : a.product > b.product ? 1 : a.voter < b.voter ? -1 : a.voter > b.voter ? 1 : 0))
}

const evidenceFor = (members: ReadonlyArray<string>, products: ReadonlyArray<ProductId>) => ({
  method: "lockstep" as const,
  members: [...members].sort(),
  products: [...products],
  windows: products.map((product) => ({ product, from: "2020-01-01T00:00:00.000Z", to: "2020-01-01T00:01:00.000Z" })),
  networks: [{ network: "net-ring", votes: members.length * products.length }],
  votes: members.length * products.length
})

/** Five agents registered at `registered` voting up three fresh products (seeded 10/2), from one network, at `voting`. */
const smallRing = (registered: number, voting: number) =>
  Effect.gen(function* () {
    const ledger = yield* VoteLedger
    const products = yield* Effect.forEach([1, 2, 3], () => Effect.map(upsertOne(freshInput({ seed: { up: 10, down: 2 } })), (o) => o.id))
    const agents = yield* Effect.forEach([1, 2, 3, 4, 5], (n) => newAgent(`ring ${n}`).pipe(at(registered)))
    for (const product of products) {
      for (const agent of agents) {
        yield* ledger.cast({ entity: product, voter: agentVoter(agent.id), direction: "up", network: "net-ring" }).pipe(at(voting))
      }
    }
    const members = agents.map((a) => agentLedgerKey(a.id))
    const votes: Array<VoteKey> = products.flatMap((productId) => members.map((voter) => ({ productId, voter })))
    return { products, agents, members, votes }
  })

export const integrityBehaviours = (it: ContractIt) => {
  it.effect("the window holds the votes cast since its start and every held vote, as columns", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const integrity = yield* IntegrityLedger
      const quiet = yield* upsertOne(freshInput())
      const bursting = yield* upsertOne(freshInput())
      const agent = yield* newAgent("windowed").pipe(at(400 * DAY))
      // Day 400: one old vote on the quiet product, then 11 votes on the other at once (the last one held).
      yield* ledger.cast({ entity: quiet.id, voter: addressVoter("window-old"), direction: "down", network: "net-a" }).pipe(at(400 * DAY))
      for (let i = 0; i < 10; i++) {
        yield* ledger
          .cast({ entity: bursting.id, voter: addressVoter(`window-${i}`), direction: "up", network: "net-b", guard: GUARD })
          .pipe(at(400 * DAY))
      }
      yield* ledger.cast({ entity: bursting.id, voter: agentVoter(agent.id), direction: "down", guard: GUARD }).pipe(at(400 * DAY))
      // Day 420: a vote on the quiet product; the window starts at day 419.
      yield* ledger.cast({ entity: quiet.id, voter: addressVoter("window-new"), direction: "up", network: "net-a" }).pipe(at(420 * DAY))
      const window = yield* integrity.window(new Date(419 * DAY))

      // It reaches back to the oldest held vote, and holds that burst's held votes but not its counted ones.
      assert.isAtMost(window.since.getTime(), 400 * DAY)
      const rows = rowsOn(window, [quiet.id, bursting.id])
      assert.deepStrictEqual(
        rows.map((r) => [
          r.product === quiet.id ? "quiet" : "bursting",
          r.voter,
          // A store need not read the networks of a product with no held vote (LedgerWindow.networkOf).
          r.product === quiet.id ? "not asked" : r.network,
          r.at,
          r.counting,
          r.direction,
          r.cleared,
          r.standing
        ]),
        [
          ...(quiet.id < bursting.id ? [] : [["bursting", agentLedgerKey(agent.id), null, 400 * DAY, HELD, 1, 0, 0]]),
          ["quiet", "ip:window-new", "not asked", 420 * DAY, COUNTED, 0, 0, 0],
          ...(quiet.id < bursting.id ? [["bursting", agentLedgerKey(agent.id), null, 400 * DAY, HELD, 1, 0, 0]] : [])
        ]
      )
      // Products, voters and networks are numbered in sorted order.
      assert.deepStrictEqual([...window.products], [...window.products].sort())
      // The votes are in order by product (a run each, covering every vote once), then by voter.
      assert.strictEqual(window.starts.length, window.products.length + 1)
      assert.strictEqual(window.starts[0], 0)
      assert.strictEqual(votesIn(window), window.voter.length)
      for (let p = 0; p < window.products.length; p++) {
        assert.ok(window.starts[p]! <= window.starts[p + 1]!)
        for (let i = window.starts[p]! + 1; i < window.starts[p + 1]!; i++) assert.ok(window.voter[i - 1]! < window.voter[i]!)
      }
      assert.deepStrictEqual([...window.voters], [...window.voters].sort())
      assert.deepStrictEqual([...window.networks], [...window.networks].sort())
      // Any vote's network can be asked for, in the order asked (a group's, for its evidence): null for none, or no such vote.
      assert.deepStrictEqual(
        yield* integrity.networks([
          { productId: quiet.id, voter: "ip:window-new" },
          { productId: bursting.id, voter: "ip:window-3" },
          { productId: bursting.id, voter: agentLedgerKey(agent.id) },
          { productId: quiet.id, voter: "ip:window-3" },
          { productId: quiet.id, voter: "ip:window-old" }
        ]),
        ["net-a", "net-b", null, null, "net-a"]
      )
      assert.deepStrictEqual(yield* integrity.networks([]), [])
    })
  )

  it.effect("a vote is in the window at the time it was cast, not when it last changed (a held vote changed hours later was counted)", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const integrity = yield* IntegrityLedger
      const bursting = yield* upsertOne(freshInput())
      const older = yield* upsertOne(freshInput())
      const cast = 430 * DAY
      for (let i = 0; i < 11; i++) {
        yield* ledger
          .cast({ entity: bursting.id, voter: addressVoter(`cast-time-${i}`), direction: "up", network: "net-c", guard: GUARD })
          .pipe(at(cast))
      }
      yield* ledger
        .cast({ entity: older.id, voter: addressVoter("cast-time-older"), direction: "up", network: "net-c" })
        .pipe(at(425 * DAY))
      // Three hours on, the held voter and a counted one change their minds; the older vote changes a day on.
      const later = cast + 3 * 3_600_000
      for (const i of [10, 0]) {
        yield* ledger
          .cast({ entity: bursting.id, voter: addressVoter(`cast-time-${i}`), direction: "down", network: "net-c", guard: GUARD })
          .pipe(at(later))
      }
      yield* ledger
        .cast({ entity: older.id, voter: addressVoter("cast-time-older"), direction: "down", network: "net-c" })
        .pipe(at(cast + DAY))
      const window = yield* integrity.window(new Date(cast - 3_600_000))
      const timeOf = (voter: string) => rowsOn(window, [bursting.id, older.id]).find((r) => r.voter === `ip:${voter}`)
      assert.deepStrictEqual(
        [timeOf("cast-time-10")?.at, timeOf("cast-time-10")?.counting, timeOf("cast-time-0")?.at, timeOf("cast-time-0")?.counting],
        [cast, HELD, cast, COUNTED]
      )
      // Cast before the window and changed inside it: there at its change.
      assert.strictEqual(timeOf("cast-time-older")?.at, cast + DAY)
    })
  )

  it.effect(
    "a verdict discounts its groups' votes and counts the held votes it releases, recounting once; applied again it changes nothing",
    () =>
      Effect.gen(function* () {
        const integrity = yield* IntegrityLedger
        const ledger = yield* VoteLedger
        const { products, members, votes } = yield* smallRing(430 * DAY, 430 * DAY)
        // One more product, in a burst: 10 counted votes, then 3 held ones of addresses.
        const burst = yield* upsertOne(freshInput())
        for (let i = 0; i < 13; i++) {
          yield* ledger.cast({ entity: burst.id, voter: addressVoter(`verdict-${i}`), direction: "down", guard: GUARD }).pipe(at(430 * DAY))
        }
        assert.strictEqual((yield* ledger.formation(burst.id)).held, 3)
        const release = [10, 11, 12].map((i) => ({ productId: burst.id, voter: `ip:verdict-${i}` }))
        const groupId = rng.uuid()
        const evidence = evidenceFor(members, products)
        const verdict = { groups: [{ id: groupId, evidence, votes, discount: true }], release }

        const applied = yield* integrity.apply(verdict, new Date(431 * DAY))
        assert.deepStrictEqual([applied.discounted, applied.released], [15, 3])
        assert.deepStrictEqual(
          [...applied.recounted].sort((a, b) => (a.id < b.id ? -1 : 1)),
          [
            ...products.map((id) => ({ id, before: { up: 15, down: 2 }, after: { up: 10, down: 2 } })),
            { id: burst.id, before: { up: 0, down: 10 }, after: { up: 0, down: 13 } }
          ].sort((a, b) => (a.id < b.id ? -1 : 1))
        )
        assert.deepStrictEqual(yield* ledger.formation(products[0]!), {
          agents: { up: 0, down: 0 },
          addresses: { up: 0, down: 0 },
          byWeight: [],
          held: 0,
          heldBy: { waiting: 0, anonymous: 0, reversal: 0, group: 0 },
          discounted: 5
        })
        const group = (yield* integrity.groups).find((g) => g.id === groupId)
        assert.deepStrictEqual(group, { id: groupId, status: "suspected", foundAt: new Date(431 * DAY), decidedAt: null, evidence })

        const again = yield* integrity.apply(verdict, new Date(432 * DAY))
        assert.deepStrictEqual(again, { discounted: 0, released: 0, recounted: [] })
        // The group keeps when it was first found.
        assert.deepStrictEqual((yield* integrity.groups).find((g) => g.id === groupId)?.foundAt, new Date(431 * DAY))
      })
  )

  it.effect(
    "a verdict's counters are the ledger's count: a held vote it discounts, or a revoked one it discounts or releases, moves nothing",
    () =>
      Effect.gen(function* () {
        const integrity = yield* IntegrityLedger
        const ledger = yield* VoteLedger
        const registry = yield* AgentRegistry
        const product = yield* upsertOne(freshInput())
        const [c, d, a, b, e] = yield* Effect.forEach(["c", "d", "a", "b", "e"], (n) => newAgent(`counted ${n}`).pipe(at(459 * DAY)))
        const cast = (voter: Voter, direction: "up" | "down") =>
          ledger.cast({ entity: product.id, voter, direction, guard: GUARD }).pipe(at(460 * DAY))
        // Ten counted (agents c and d among them), then a burst's held votes: agents a, b and e down, an address up.
        yield* cast(agentVoter(c!.id), "up")
        yield* cast(agentVoter(d!.id), "up")
        for (let i = 0; i < 8; i++) yield* cast(addressVoter(`counted-${i}`), "up")
        yield* cast(agentVoter(a!.id), "down")
        yield* cast(agentVoter(b!.id), "down")
        yield* cast(agentVoter(e!.id), "down")
        yield* cast(addressVoter("counted-held"), "up")
        assert.strictEqual((yield* ledger.formation(product.id)).held, 4)
        // Revoked: c's counted vote and a's and e's held ones.
        for (const agent of [c!, a!, e!]) yield* registry.revoke(agent.id).pipe(at(461 * DAY))
        assert.deepStrictEqual(yield* countersOf(product.id), { up: 9, down: 0 })

        const key = (voter: string) => ({ productId: product.id, voter })
        const members = [c!, d!, a!].map((x) => agentLedgerKey(x.id)).sort()
        const verdict = {
          // d's counted vote goes; c's (revoked) and a's (held and revoked) counted before for nothing.
          groups: [{ id: rng.uuid(), evidence: evidenceFor(members, [product.id]), votes: members.map(key), discount: true }],
          // b's and the address's count from now on; e's is revoked, and counts for nothing.
          release: [key(agentLedgerKey(b!.id)), key("ip:counted-held"), key(agentLedgerKey(e!.id))]
        }
        const applied = yield* integrity.apply(verdict, new Date(462 * DAY))
        assert.deepStrictEqual([applied.discounted, applied.released], [3, 3])
        assert.deepStrictEqual(yield* countersOf(product.id), { up: 9, down: 1 })
        assert.deepStrictEqual(applied.recounted, [{ id: product.id, before: { up: 9, down: 0 }, after: { up: 9, down: 1 } }])
      })
  )

  it.effect(
    "a problem report counts as its vote does: not while it is held, once a verdict counts it, not once discounted, again once cleared",
    () =>
      Effect.gen(function* () {
        const integrity = yield* IntegrityLedger
        const ledger = yield* VoteLedger
        const problems = yield* ProblemStore
        const product = yield* upsertOne(freshInput())
        const reporter = yield* newAgent("reporter").pipe(at(469 * DAY))
        for (let i = 0; i < 10; i++)
          yield* ledger.cast({ entity: product.id, voter: addressVoter(`reports-${i}`), direction: "up", guard: GUARD }).pipe(at(470 * DAY))
        // In the burst: held, and its report waits with it.
        const cast = yield* ledger
          .cast({ entity: product.id, voter: agentVoter(reporter.id), direction: "down", reason: "Loses data on sync", guard: GUARD })
          .pipe(at(470 * DAY))
        assert.strictEqual(cast.counting, "held")
        const reports = Effect.map(problems.reported(product.id), (list) => list.map((p) => [p.text, p.agents + p.addresses]))
        assert.deepStrictEqual(yield* reports, [])

        const key = { productId: product.id, voter: agentLedgerKey(reporter.id) }
        yield* integrity.apply({ groups: [], release: [key] }, new Date(471 * DAY))
        assert.deepStrictEqual(yield* reports, [["Loses data on sync", 1]])

        const groupId = rng.uuid()
        const evidence = evidenceFor([key.voter], [product.id])
        yield* integrity.apply({ groups: [{ id: groupId, evidence, votes: [key], discount: true }], release: [] }, new Date(472 * DAY))
        assert.deepStrictEqual(yield* reports, [])

        yield* integrity.decide(groupId, "cleared", new Date(473 * DAY))
        assert.deepStrictEqual(yield* reports, [["Loses data on sync", 1]])
      })
  )

  it.effect("held votes a verdict counts teach the product's rate: a product that started cold is not a burst at its own pace", () =>
    Effect.gen(function* () {
      const integrity = yield* IntegrityLedger
      const ledger = yield* VoteLedger
      const product = yield* upsertOne(freshInput())
      const cast = (name: string, at_: number) =>
        ledger.cast({ entity: product.id, voter: addressVoter(name), direction: "up", guard: GUARD }).pipe(at(at_))
      // Day 440: 400 votes at once on a product no vote had moved: 10 count, the rest wait; the pass counts them.
      for (let i = 0; i < 400; i++) yield* cast(`taught-${i}`, 440 * DAY)
      assert.strictEqual((yield* ledger.formation(product.id)).held, 390)
      const release = Array.from({ length: 390 }, (_, k) => ({ productId: product.id, voter: `ip:taught-${k + 10}` }))
      assert.strictEqual((yield* integrity.apply({ groups: [], release }, new Date(440 * DAY + 3_600_000))).released, 390)
      // Six hours on, 30 more: the week's rate has learnt 400 votes (a bar of about 28 an hour), not the 10 that
      // counted when cast (a bar of about 10).
      const later = yield* Effect.forEach(
        Array.from({ length: 30 }, (_, i) => i),
        (i) => cast(`later-${i}`, 440 * DAY + 6 * 3_600_000)
      )
      assert.isAtLeast(later.filter((r) => r.counting === "counted").length, 25)
    })
  )

  it.effect("an operator clears a group (its votes count, no verdict discounts them again) or confirms it; both recount at once", () =>
    Effect.gen(function* () {
      const integrity = yield* IntegrityLedger
      const { products, members, votes } = yield* smallRing(440 * DAY, 440 * DAY)
      const groupId = rng.uuid()
      const verdict = { groups: [{ id: groupId, evidence: evidenceFor(members, products), votes, discount: true }], release: [] }
      yield* integrity.apply(verdict, new Date(441 * DAY))
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 10, down: 2 })

      const cleared = yield* integrity.decide(groupId, "cleared", new Date(442 * DAY))
      assert.deepStrictEqual(
        [cleared.changed, cleared.votes, cleared.group.status, cleared.group.decidedAt],
        [true, 15, "cleared", new Date(442 * DAY)]
      )
      assert.deepStrictEqual(cleared.recounted.length, 3)
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 15, down: 2 })
      // The window marks the cleared votes, and a verdict naming them again (or a new group of them) changes nothing.
      const window = yield* integrity.window(new Date(440 * DAY))
      assert.deepStrictEqual(
        rowsOn(window, products).map((r) => r.cleared),
        Array(15).fill(1)
      )
      assert.deepStrictEqual(yield* integrity.apply(verdict, new Date(443 * DAY)), { discounted: 0, released: 0, recounted: [] })
      const other = { groups: [{ id: rng.uuid(), evidence: evidenceFor(members, products), votes, discount: true }], release: [] }
      assert.deepStrictEqual((yield* integrity.apply(other, new Date(443 * DAY))).discounted, 0)
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 15, down: 2 })
      assert.isFalse((yield* integrity.decide(groupId, "cleared", new Date(443 * DAY))).changed)

      const confirmed = yield* integrity.decide(groupId, "confirmed", new Date(444 * DAY))
      assert.deepStrictEqual([confirmed.changed, confirmed.votes, confirmed.group.status], [true, 15, "confirmed"])
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 10, down: 2 })

      const missing = yield* Effect.flip(integrity.decide("not-a-group", "confirmed", new Date(444 * DAY)))
      assert.strictEqual(missing._tag, "GroupNotFound")
      const missingUuid = yield* Effect.flip(integrity.decide(rng.uuid(), "cleared", new Date(444 * DAY)))
      assert.strictEqual(missingUuid._tag, "GroupNotFound")
    })
  )

  it.effect("a group for review keeps its votes counting until an operator confirms it; confirmed, they are discounted at once", () =>
    Effect.gen(function* () {
      const integrity = yield* IntegrityLedger
      const { products, members, votes } = yield* smallRing(445 * DAY, 445 * DAY)
      const groupId = rng.uuid()
      const evidence = { ...evidenceFor(members, products), coverage: 0.6, focus: 0.2, review: true }
      const applied = yield* integrity.apply(
        { groups: [{ id: groupId, evidence, votes, discount: false }], release: [] },
        new Date(446 * DAY)
      )
      assert.strictEqual(applied.discounted, 0)
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 15, down: 2 })
      const listed = (yield* integrity.groups).find((g) => g.id === groupId)!
      assert.deepStrictEqual([listed.status, listed.evidence.review, listed.evidence.coverage], ["suspected", true, 0.6])
      // Its votes are still counted in the window, and still its own: confirming discounts exactly them.
      const window = yield* integrity.window(new Date(445 * DAY))
      assert.deepStrictEqual(
        rowsOn(window, products).map((r) => r.counting),
        Array(15).fill(0)
      )
      const confirmed = yield* integrity.decide(groupId, "confirmed", new Date(447 * DAY))
      assert.deepStrictEqual([confirmed.changed, confirmed.votes], [true, 15])
      assert.deepStrictEqual(yield* countersOf(products[0]!), { up: 10, down: 2 })
    })
  )

  it.effect(
    "standing goes to agents old enough with settled counted votes, not to a group's members; with it a burst counts their votes",
    () =>
      Effect.gen(function* () {
        const integrity = yield* IntegrityLedger
        const ledger = yield* VoteLedger
        const registry = yield* AgentRegistry
        const steady = yield* newAgent("steady").pipe(at(450 * DAY))
        const young = yield* newAgent("young").pipe(at(450 * DAY))
        const products = yield* Effect.forEach([1, 2, 3, 4], () => Effect.map(upsertOne(freshInput()), (o) => o.id))
        for (const product of products.slice(0, 3)) {
          yield* ledger.cast({ entity: product, voter: agentVoter(steady.id), direction: "up" }).pipe(at(450 * DAY))
        }
        const ring = yield* smallRing(450 * DAY, 451 * DAY)
        // The ring's members vote like steady too, the day before their ring: only the group keeps them from standing.
        for (const agent of ring.agents) {
          for (const product of products.slice(0, 3)) {
            yield* ledger.cast({ entity: product, voter: agentVoter(agent.id), direction: "down" }).pipe(at(450 * DAY))
          }
        }
        yield* integrity.apply(
          {
            groups: [{ id: rng.uuid(), evidence: evidenceFor(ring.members, ring.products), votes: ring.votes, discount: true }],
            release: []
          },
          new Date(451 * DAY)
        )
        for (const product of products.slice(0, 3)) {
          yield* ledger.cast({ entity: product, voter: agentVoter(young.id), direction: "up" }).pipe(at(451 * DAY))
        }
        // Day 455: steady is 5 days old, its 3 votes 5 days settled; young is 5 days old too, its votes 4 days settled.
        const settled = yield* integrity.settleStanding(DEFAULT_STANDING, new Date(455 * DAY))
        assert.includeMembers([...settled.gained], [agentLedgerKey(steady.id), agentLedgerKey(young.id)])
        assert.deepStrictEqual(settled.lost, [])
        assert.deepStrictEqual((yield* registry.find(steady.id)).standingSince, new Date(455 * DAY))
        assert.deepStrictEqual((yield* registry.find(young.id)).standingSince, new Date(455 * DAY))
        // The ring's members are 5 days old with 3 settled counted votes each, but in a group: no standing.
        for (const agent of ring.agents) assert.isNull((yield* registry.find(agent.id)).standingSince)

        // In a burst on product 4, steady's vote counts at once; an address's waits.
        const burst = (voter: Voter) => ledger.cast({ entity: products[3]!, voter, direction: "up", guard: GUARD }).pipe(at(455 * DAY))
        for (let i = 0; i < 12; i++) yield* burst(addressVoter(`standing-${i}`))
        const withStanding = yield* burst(agentVoter(steady.id))
        assert.strictEqual(withStanding.counting, "counted")
        const without = yield* burst(addressVoter("standing-late"))
        assert.strictEqual(without.counting, "held")

        // Found in a group later, steady loses its standing at the next settling; young keeps its own.
        const found = { id: rng.uuid(), evidence: evidenceFor([agentLedgerKey(steady.id)], [products[3]!]), votes: [], discount: true }
        yield* integrity.apply({ groups: [found], release: [] }, new Date(456 * DAY))
        const later = yield* integrity.settleStanding(DEFAULT_STANDING, new Date(456 * DAY))
        assert.deepStrictEqual(later.lost, [agentLedgerKey(steady.id)])
        assert.isNull((yield* registry.find(steady.id)).standingSince)
        assert.deepStrictEqual((yield* registry.find(young.id)).standingSince, new Date(455 * DAY))
      })
  )

  it.effect("a product's weighed evidence is read by id, in order: seed counts and counted votes by weight; null for no product", () =>
    Effect.gen(function* () {
      const integrity = yield* IntegrityLedger
      const ledger = yield* VoteLedger
      const seeded = yield* upsertOne(freshInput({ seed: { up: 7, down: 3 } }))
      const voted = yield* upsertOne(freshInput())
      yield* ledger.cast({ entity: voted.id, voter: addressVoter("evidence-1"), direction: "down", network: "net-e" }).pipe(at(480 * DAY))
      const missing = "00000000-0000-4000-8000-00000000dead" as ProductId
      assert.deepStrictEqual(yield* integrity.evidence([voted.id, missing, seeded.id]), [
        { up: 0, down: 10 },
        null,
        { up: 7_000, down: 3_000 }
      ])
      assert.deepStrictEqual(yield* integrity.evidence([]), [])
    })
  )

  it.effect(
    "voters with standing turning on a product's settled votes within minutes: past the reversal's floor they wait, and say why",
    () =>
      Effect.gen(function* () {
        const integrity = yield* IntegrityLedger
        const ledger = yield* VoteLedger
        // Nine agents earn standing: registered on day 470, three votes each that settle by day 475.
        const agents = yield* Effect.forEach(range(9), (n) => newAgent(`patient ${n}`).pipe(at(470 * DAY)))
        const fillers = yield* Effect.forEach([1, 2, 3], () => Effect.map(upsertOne(freshInput()), (o) => o.id))
        for (const agent of agents) {
          for (const product of fillers)
            yield* ledger.cast({ entity: product, voter: agentVoter(agent.id), direction: "up" }).pipe(at(470 * DAY))
        }
        const settled = yield* integrity.settleStanding(DEFAULT_STANDING, new Date(475 * DAY))
        assert.includeMembers(
          [...settled.gained],
          agents.map((a) => agentLedgerKey(a.id))
        )

        // A product whose votes have settled up (40/2), and one with too few votes to have settled anything (4/1).
        const trusted = yield* upsertOne(freshInput({ seed: { up: 40, down: 2 } }))
        const thin = yield* upsertOne(freshInput({ seed: { up: 4, down: 1 } }))
        const down = (entity: ProductId, agent: (typeof agents)[number]) =>
          ledger.cast({ entity, voter: agentVoter(agent.id), direction: "down", guard: GUARD }).pipe(at(476 * DAY))
        // Eight of them vote the trusted product down at once: the first five count (the reversal's floor), the rest wait.
        const countings = []
        for (const agent of agents.slice(0, 8)) countings.push((yield* down(trusted.id, agent)).counting)
        assert.deepStrictEqual(countings, ["counted", "counted", "counted", "counted", "counted", "held", "held", "held"])
        assert.deepStrictEqual(yield* countersOf(trusted.id), { up: 40, down: 7 })
        // The ninth votes with the product's votes: it counts, burst or not.
        const along = yield* ledger
          .cast({ entity: trusted.id, voter: agentVoter(agents[8]!.id), direction: "up", guard: GUARD })
          .pipe(at(476 * DAY))
        assert.strictEqual(along.counting, "counted")
        const formation = yield* ledger.formation(trusted.id)
        assert.deepStrictEqual([formation.held, formation.heldBy], [3, { waiting: 0, anonymous: 0, reversal: 3, group: 0 }])

        // On the thin product nothing has settled: all eight count at once.
        const onThin = []
        for (const agent of agents.slice(0, 8)) onThin.push((yield* down(thin.id, agent)).counting)
        assert.deepStrictEqual(new Set(onThin), new Set(["counted"]))
      })
  )
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

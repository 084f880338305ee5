/**
 * Runs the month: the world's and the attacks' events in time order through the use cases the API
 * runs (Agents.register, Directory.vote) on a real store, the integrity pass as productdir-reconcile
 * runs it (every `passEveryHours`), and the measurements the report prints.
 */
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import {
  type AgentId,
  CatalogStore,
  COUNTED,
  DEFAULT_BURST_GUARD,
  emptyVocabulary,
  defaultUtm,
  DISCOUNTED,
  discounts,
  fromImportRecord,
  HELD,
  IntegrityLedger,
  type LedgerWindow,
  type ProductId,
  productOf,
  type Stores,
  MILLI,
  type Tally,
  trustScore,
  VOTE_WEIGHTS,
  votesIn,
  weightedOf
} from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures"
import {
  Agents,
  DEFAULT_ANONYMOUS_VOTES,
  DEFAULT_REGISTRATIONS,
  DEFAULT_REGISTRATIONS_PER_ADDRESS,
  Directory,
  IntegrityPass,
  VoterIdentity
} from "@productdir/usecases"
import type { Attack } from "./attacks.ts"
import { syntheticClock } from "./clock.ts"
import { HOUR, type World } from "./world.ts"

/**
 * How a group's votes fared: cast (answered 201), refused (429), and how they count at the end; of those counted, how
 * many weigh a fortieth of a vote or less (`light`: their voter had no standing when they voted).
 */
export interface Fate {
  cast: number
  refused: number
  heldAtCast: number
  counted: number
  light: number
  held: number
  discounted: number
}

const emptyFate = (): Fate => ({ cast: 0, refused: 0, heldAtCast: 0, counted: 0, light: 0, held: 0, discounted: 0 })

/** How far an attack moved its targets (trust_score points, in the attack's direction; the largest of its targets). */
export interface AttackFigures {
  readonly attack: Attack
  /** Registrations it tried, and got. */
  registrations: { tried: number; got: number }
  votes: Fate
  /** Its votes on its targets (a ring's other votes are camouflage). */
  onTargets: Fate
  /** Its move just before the first pass after its last vote. */
  atOnce: number
  /** After that pass. */
  afterPass: number
  /** The most it moved at any pass while it was open. */
  peak: number
  /** At the end of the month. */
  atEnd: number
  /** Hours after its first vote until the pass after which it moved its targets ≤ 5 points for good; undefined: never. */
  caughtAfterHours: number | undefined
}

export interface PassFigures {
  readonly runs: number
  readonly millis: ReadonlyArray<number>
  readonly votesRead: ReadonlyArray<number>
}

export interface Outcome {
  readonly votes: number
  readonly benign: Map<string, Fate>
  readonly benignRegistrations: Map<string, { tried: number; got: number }>
  readonly attacks: Array<AttackFigures>
  readonly passes: PassFigures
  /** Every group found: how, its members by who they really are, its products and votes. */
  readonly groups: ReadonlyArray<{
    readonly method: string
    readonly members: ReadonlyMap<string, number>
    readonly products: number
    readonly votes: number
  }>
  readonly wallSeconds: number
  /**
   * The products benign voters voted in the month: how far each one's judged score is from the score of the same
   * votes unweighed (every counted vote a whole one), for all of them and for those whose month's votes all came from
   * agents that had standing when they voted.
   */
  readonly weighing: {
    readonly all: ReadonlyArray<number>
    readonly byStanding: ReadonlyArray<number>
  }
  /** Benign votes still held at the end: how many, by the day they were cast and by their product's popularity rank. */
  readonly heldAtEnd: ReadonlyArray<{
    readonly group: string
    readonly day: number
    readonly rank: number
    readonly discounted: boolean
    readonly at: number
  }>
}

const productId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}` as ProductId

/** The use cases over `stores`, configured as the API is by default. */
export const useCases = <E>(stores: Layer.Layer<Stores, E>) => {
  const identity = VoterIdentity.layer(Option.some(Redacted.make("simulation")))
  return Layer.mergeAll(
    Directory.layer({
      votesPerVoter: 60,
      votesPerClient: 60,
      anonymousVotesPerNetwork: DEFAULT_ANONYMOUS_VOTES,
      burstGuard: DEFAULT_BURST_GUARD,
      utm: defaultUtm,
      // Votes only: no search is asked.
      vocabulary: emptyVocabulary
    }),
    Agents.layer({
      registrationsPerNetwork: {
        ...DEFAULT_REGISTRATIONS,
        "v6/64": DEFAULT_REGISTRATIONS_PER_ADDRESS,
        "v4/32": DEFAULT_REGISTRATIONS_PER_ADDRESS
      }
    }).pipe(Layer.provide(identity)),
    identity
  ).pipe(Layer.provideMerge(stores))
}

export interface RunSettings {
  readonly seed: number
  readonly products: number
  readonly passEveryHours: number
  /** The integrity pass's settings; absent, its defaults (what productdir-reconcile runs). */
  readonly pass?: IntegrityPass.PassSettings | undefined
  readonly onProgress: (line: string) => void
  /**
   * Called after each pass that leaves more benign votes discounted than the pass before, with what the ledger's
   * groups then are (who their members are, by the simulation's labels): why a benign voter lost a vote.
   */
  readonly onBenignDiscounted?: ((lines: ReadonlyArray<string>) => void) | undefined
}

export const simulate = <E>(world: World, attacks: ReadonlyArray<Attack>, stores: Layer.Layer<Stores, E>, settings: RunSettings) =>
  Effect.gen(function* () {
    const clock = syntheticClock(world.start - HOUR, yield* Clock.Clock)
    const program = Effect.gen(function* () {
      const catalog = yield* CatalogStore
      const directory = yield* Directory.Directory
      const agents = yield* Agents.Agents
      const identity = yield* VoterIdentity.VoterIdentity
      const ledger = yield* IntegrityLedger
      const started = Date.now()

      // The catalog, its seeds by popularity: the most voted products came with the most votes.
      const template = fromImportRecord(generateRecord(settings.seed, 0), productId(0)).input.content
      for (let from = 0; from < settings.products; from += 1_000) {
        yield* catalog.upsert(
          Array.from({ length: Math.min(1_000, settings.products - from) }, (_, k) => {
            const rank = from + k
            const n = Math.round(2_500 / (rank + 1) ** 0.6) + (rank % 7)
            const up = Math.round(n * world.quality[rank]!)
            return { id: productId(rank), content: { ...template, name: `Product ${rank}` }, seed: { up, down: n - up } }
          })
        )
      }

      const agentIds: Array<AgentId | undefined> = new Array(world.agents.length)
      /** Each voter's group (its ledger key); votes of a group other than their voter's (stolen keys) by product and voter. */
      const voterGroup = new Map<string, string>()
      const voteGroup = new Map<string, string>()
      const groupOf = (product: string, voter: string) => voteGroup.get(`${product}|${voter}`) ?? voterGroup.get(voter) ?? "?"
      const registrations = new Map<string, { tried: number; got: number }>()
      const fates = new Map<string, Fate>()
      const fateOf = (group: string) => fates.get(group) ?? fates.set(group, emptyFate()).get(group)!
      /** What each vote weighs (thousandths of a vote), by product and voter, as its answer said when it was cast. */
      const weights = new Map<string, number>()

      const figures: Array<AttackFigures> = attacks.map((attack) => ({
        attack,
        registrations: { tried: 0, got: 0 },
        votes: emptyFate(),
        onTargets: emptyFate(),
        atOnce: 0,
        afterPass: 0,
        peak: 0,
        atEnd: 0,
        caughtAfterHours: undefined
      }))
      const attackNamed = new Map(figures.map((f) => [f.attack.name, f]))

      /** Each open attack's move now, from the ledger: the counters with and without its counted votes. */
      const moves = (open: ReadonlyArray<AttackFigures>) =>
        Effect.gen(function* () {
          if (open.length === 0) return new Map<AttackFigures, number>()
          const since = new Date(Math.min(...open.map((f) => f.attack.from)) - HOUR)
          const window = yield* ledger.window(since)
          const result = new Map<AttackFigures, number>()
          for (const f of open) {
            const targets = new Map(f.attack.targets.map((t) => [productId(t) as string, { up: 0, down: 0 }]))
            tallyCounted(
              window,
              (product, voter) => targets.has(product) && groupOf(product, voter) === f.attack.name,
              (product, voter) => weights.get(`${product}|${voter}`) ?? 0,
              targets
            )
            let most = 0
            // The judgement with and without the attack's counted votes, each by what it weighed.
            for (const [id, attackWeighed] of targets) {
              const product = yield* catalog.find(id)
              const without: Tally = { up: product.weighted.up - attackWeighed.up, down: product.weighted.down - attackWeighed.down }
              const moved = trustScore(product.weighted) - trustScore(without)
              most = Math.max(most, f.attack.direction === "up" ? moved : -moved)
            }
            result.set(f, most)
          }
          return result
        })

      // Benign votes discounted after the last pass, by label, for onBenignDiscounted.
      let benignDiscounted = 0
      const traceDiscounts = (at: number, found: IntegrityPass.PassReport["groups"]) =>
        Effect.gen(function* () {
          const window = yield* ledger.window(new Date(world.start - HOUR))
          const byLabel = new Map<string, number>()
          let discounted = 0
          for (let i = 0; i < votesIn(window); i++) {
            if (window.counting[i] !== DISCOUNTED) continue
            const label = groupOf(window.products[productOf(window, i)]!, window.voters[window.voter[i]!]!)
            if (attackNamed.has(label)) continue
            discounted++
            byLabel.set(label, (byLabel.get(label) ?? 0) + 1)
          }
          if (discounted <= benignDiscounted) {
            benignDiscounted = discounted
            return
          }
          benignDiscounted = discounted
          const groups = yield* ledger.groups
          const labels = (members: ReadonlyArray<string>) => {
            const count = new Map<string, number>()
            for (const m of members) count.set(voterGroup.get(m) ?? "?", (count.get(voterGroup.get(m) ?? "?") ?? 0) + 1)
            return [...count].map(([label, n]) => `${n} ${label}`).join(", ")
          }
          settings.onBenignDiscounted?.([
            `pass at ${new Date(at).toISOString()}: ${discounted} benign votes discounted (${[...byLabel].map(([l, n]) => `${l} ${n}`).join(", ")})`,
            ...found.map(
              (g) =>
                `  found: ${g.method}, ${g.members} members, ${g.products} products, ${g.votes} votes, known ${g.known}, review ${g.review}`
            ),
            ...groups
              .filter((g) => discounts(g))
              .map(
                (g) =>
                  `  discounting: ${g.id.slice(0, 8)} ${g.evidence.method} found ${g.foundAt.toISOString()}: ${labels(g.evidence.members)}; ${g.evidence.products.length} products, coverage ${g.evidence.coverage}, focus ${g.evidence.focus}`
              )
          ])
        })

      const passMillis: Array<number> = []
      const votesRead: Array<number> = []
      const pass = (at: number) =>
        Effect.gen(function* () {
          clock.set(at)
          const open = figures.filter((f) => f.attack.from <= at && at <= f.attack.to + 9 * 24 * HOUR)
          const before = yield* moves(open.filter((f) => f.attack.to <= at && at - settings.passEveryHours * HOUR < f.attack.to))
          for (const [f, moved] of before) if (f.atOnce === 0) f.atOnce = moved
          const t0 = performance.now()
          const report = yield* IntegrityPass.runPass({ apply: true, ...(settings.pass === undefined ? {} : { settings: settings.pass }) })
          passMillis.push(performance.now() - t0)
          votesRead.push(report.votesRead)
          if (settings.onBenignDiscounted !== undefined) yield* traceDiscounts(at, report.groups)
          const after = yield* moves(open)
          for (const [f, moved] of after) {
            f.peak = Math.max(f.peak, moved)
            if (at >= f.attack.to && f.afterPass === 0 && before.has(f)) f.afterPass = moved
            if (moved > 5) f.caughtAfterHours = undefined
            else if (f.caughtAfterHours === undefined) f.caughtAfterHours = (at - f.attack.from) / HOUR
          }
        })

      const events = [...world.events].sort((a, b) => a.at - b.at)
      let nextPass = world.start + settings.passEveryHours * HOUR
      let votes = 0
      for (const event of events) {
        while (event.at >= nextPass) {
          yield* pass(nextPass)
          nextPass += settings.passEveryHours * HOUR
          if (((nextPass - world.start) / HOUR) % 24 === 0) {
            settings.onProgress(`day ${(nextPass - world.start) / (24 * HOUR)}: ${votes.toLocaleString("en")} votes cast`)
          }
        }
        clock.set(event.at)
        const agent = world.agents[event.agent]
        if (event.kind === "register") {
          const tally = registrations.get(agent!.group) ?? registrations.set(agent!.group, { tried: 0, got: 0 }).get(agent!.group)!
          tally.tried++
          const registered = yield* agents.register({ name: `${agent!.group} ${event.agent}` }, agent!.address)
          if (registered._tag === "Registered") {
            tally.got++
            agentIds[event.agent] = registered.agent.id
            voterGroup.set(`agent:${registered.agent.id}`, agent!.group)
          }
          continue
        }
        const agentId = event.agent >= 0 ? agentIds[event.agent] : undefined
        // An agent the farm could not register has no key to vote with.
        if (event.agent >= 0 && agentId === undefined) continue
        const caster = identity.caster({ address: event.address, agent: agentId })
        const voter = caster.voter._tag === "Agent" ? `agent:${caster.voter.agentId}` : `ip:${caster.voter.key}`
        if (event.agent < 0) voterGroup.set(voter, event.group)
        else if (agent!.group !== event.group) voteGroup.set(`${productId(event.product)}|${voter}`, event.group)
        const fate = attackNamed.get(event.group)?.votes ?? fateOf(event.group)
        const result = yield* directory.vote({ entity_id: productId(event.product), direction: event.direction }, caster)
        votes++
        if (result._tag === "Limited") fate.refused++
        else {
          fate.cast++
          if (result.outcome.counting === "held") fate.heldAtCast++
          if (result.outcome.status !== "unchanged")
            weights.set(`${productId(event.product)}|${voter}`, Math.round(result.outcome.weight * MILLI))
        }
      }
      // The month ends with one more pass, as the hourly job would run.
      yield* pass(nextPass)
      for (const [f, moved] of yield* moves(figures)) f.atEnd = moved

      // How every vote counts at the end, by group.
      const window = yield* ledger.window(new Date(world.start - HOUR))
      const heldAtEnd: Array<{ group: string; day: number; rank: number; discounted: boolean; at: number }> = []
      for (let i = 0; i < votesIn(window); i++) {
        const product = window.products[productOf(window, i)]!
        const group = groupOf(product, window.voters[window.voter[i]!]!)
        const attack = attackNamed.get(group)
        const counting = window.counting[i]!
        const onTarget = attack?.attack.targets.some((t) => productId(t) === product) === true
        const fates = attack === undefined ? [fateOf(group)] : onTarget ? [attack.votes, attack.onTargets] : [attack.votes]
        if (onTarget) attack!.onTargets.cast++
        const weight = weights.get(`${product}|${window.voters[window.voter[i]!]!}`) ?? 0
        for (const fate of fates) {
          if (counting === COUNTED) {
            fate.counted++
            if (weight <= VOTE_WEIGHTS.agent) fate.light++
          } else if (counting === HELD) fate.held++
          else fate.discounted++
        }
        if (attack === undefined && counting !== COUNTED) {
          const at = window.since.getTime() + window.seconds[i]! * 1000
          heldAtEnd.push({
            group,
            day: Math.floor((at - world.start) / (24 * HOUR)),
            rank: Number.parseInt(product.slice(-12), 16),
            discounted: counting !== HELD,
            at
          })
        }
      }
      for (const f of figures) f.registrations = registrations.get(f.attack.name) ?? { tried: 0, got: 0 }

      // Each product benign voters voted: its judged score against the same votes unweighed.
      const benignProducts = new Map<string, { heavy: boolean; counted: Tally }>()
      for (let i = 0; i < votesIn(window); i++) {
        const product = window.products[productOf(window, i)]!
        const voter = window.voters[window.voter[i]!]!
        if (attackNamed.has(groupOf(product, voter))) continue
        const seen = benignProducts.get(product) ?? { heavy: true, counted: { up: 0, down: 0 } }
        const weight = weights.get(`${product}|${voter}`) ?? 0
        benignProducts.set(product, {
          heavy: seen.heavy && weight === VOTE_WEIGHTS.standing,
          counted:
            window.counting[i] !== COUNTED
              ? seen.counted
              : window.direction[i] === 0
                ? { up: seen.counted.up + 1, down: seen.counted.down }
                : { up: seen.counted.up, down: seen.counted.down + 1 }
        })
      }
      const weighing = { all: [] as Array<number>, byStanding: [] as Array<number> }
      for (const [id, { heavy }] of benignProducts) {
        const product = yield* catalog.find(id)
        const gap = Math.abs(trustScore(product.weighted) - trustScore(weightedOf(product.counters, { up: 0, down: 0 })))
        weighing.all.push(gap)
        if (heavy) weighing.byStanding.push(gap)
      }

      // The groups the passes found, by who their members really are.
      const found = (yield* ledger.groups).map((g) => {
        const members = new Map<string, number>()
        for (const m of g.evidence.members) members.set(voterGroup.get(m) ?? "?", (members.get(voterGroup.get(m) ?? "?") ?? 0) + 1)
        return {
          method: g.evidence.method,
          members,
          products: g.evidence.products.length,
          votes: g.evidence.votes,
          coverage: g.evidence.coverage ?? 0,
          focus: g.evidence.focus ?? 0,
          discounted: g.evidence.review !== true
        }
      })
      const benignRegistrations = new Map([...registrations].filter(([group]) => !attackNamed.has(group)))
      return {
        votes,
        benign: fates,
        benignRegistrations,
        attacks: figures,
        passes: { runs: passMillis.length, millis: passMillis, votesRead },
        groups: found,
        weighing,
        heldAtEnd,
        wallSeconds: (Date.now() - started) / 1000
      } satisfies Outcome
    })
    return yield* program.pipe(Effect.provide(useCases(stores)), Effect.provideService(Clock.Clock, clock))
  })

/** Adds what the counted votes of the window that `belongs` says are the attack's weigh to `tallies`, by product. */
const tallyCounted = (
  window: LedgerWindow,
  belongs: (product: string, voter: string) => boolean,
  weightOf: (product: string, voter: string) => number,
  tallies: Map<string, { up: number; down: number }>
) => {
  for (let i = 0; i < votesIn(window); i++) {
    if (window.counting[i] !== COUNTED) continue
    const product = window.products[productOf(window, i)]!
    const tally = tallies.get(product)
    const voter = window.voters[window.voter[i]!]!
    if (tally === undefined || !belongs(product, voter)) continue
    if (window.direction[i] === 0) tally.up += weightOf(product, voter)
    else tally.down += weightOf(product, voter)
  }
}

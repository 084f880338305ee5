/**
 * The crowd-defense simulation (issue "Crowd-proof trust"; docs/threat-model.md, "Crowds"): a month of
 * benign traffic and twelve attacks (issue 58 added five: small rings, a mixed flood, sleepers, a camouflaged ring, fresh agents), in synthetic time, through the use cases the API runs on a real
 * store, with the integrity pass every hour as productdir-reconcile --every 1h runs it. Prints, per
 * attack, how far its targets moved and when it was caught; per benign group, the share of its votes
 * refused, held and discounted; the pass's time; each beside its goal. Writes the figures into
 * docs/benchmarks.md ("Crowd defense: the simulation"). The pass at 10,000,000 votes is crowd-pass.ts.
 *
 *   npm run bench:crowd                          # 30 days, 10,000 agents, 70,000 visitors, memory store
 *   BENCH_STORE=postgres npm run bench:crowd     # the same month on PostgreSQL (BENCH_POSTGRES, a database of its own)
 *   BENCH_SCALE=0.1 npm run bench:crowd          # a tenth of the people, for a quick look
 *   BENCH_TRACE_DISCOUNTS=1 npm run bench:crowd  # each pass that discounts benign votes, and the groups then
 *   BENCH_PROVEN_SHARE=0.3 npm run bench:crowd   # the pass with another share of proven voters releasing addresses
 */
import { Effect, type Layer, Redacted } from "effect"
import type { Stores } from "@productdir/domain"
import * as MemoryStore from "@productdir/store-memory"
import { layerPostgres } from "@productdir/store-postgres"
import { addAttacks } from "./crowd/attacks.ts"
import { type Fate, simulate } from "./crowd/simulation.ts"
import { benignWorld } from "./crowd/world.ts"
import { ensureDatabase, median, writeSection } from "./lib.ts"
import { IntegrityPass } from "@productdir/usecases"

const SCALE = Number(process.env.BENCH_SCALE ?? 1)
const STORE = process.env.BENCH_STORE ?? "memory"
const SEED = Number(process.env.BENCH_SEED ?? 21)
const PASS_EVERY_HOURS = Number(process.env.BENCH_PASS_EVERY_HOURS ?? 1)
const START = Date.UTC(2026, 0, 5)
/** Trying another share of proven voters at which a burst's held addresses count (release.ts); absent, the default. */
const PROVEN_SHARE = process.env.BENCH_PROVEN_SHARE === undefined ? undefined : Number(process.env.BENCH_PROVEN_SHARE)

const settings = {
  seed: SEED,
  days: 30,
  products: 20_000,
  agents: Math.round(10_000 * SCALE),
  visitors: Math.round(70_000 * SCALE),
  agentVotes: 40,
  virals: 3,
  fansPerViral: Math.round(3_000 * Math.max(SCALE, 0.2)),
  newsletters: Math.round(12 * Math.max(SCALE, 0.25))
}

const stores = async (): Promise<Layer.Layer<Stores, unknown>> => {
  if (STORE === "memory") return MemoryStore.layer
  const url = await ensureDatabase("productdir_bench_crowd", true)
  return layerPostgres(Redacted.make(url), { parallelQueries: true }) as Layer.Layer<Stores, unknown>
}

const pct = (n: number, of: number) => (of === 0 ? "–" : `${((100 * n) / of).toFixed(n > 0 && n < of / 1000 ? 3 : 1)} %`)
const n = (x: number) => x.toLocaleString("en")
const mark = (ok: boolean) => (ok ? "✓" : "✗ missed")

const world = benignWorld(settings, START)
const attacks = addAttacks(world, SEED)
console.log(
  `crowd simulation: ${settings.days} days, ${n(settings.products)} products, ${n(settings.agents)} agents, ${n(settings.visitors)} visitors, ` +
    `${n(world.events.filter((e) => e.kind === "vote").length)} votes scheduled, store ${STORE}, pass every ${PASS_EVERY_HOURS} h`
)
const outcome = await Effect.runPromise(
  simulate(world, attacks, await stores(), {
    seed: SEED,
    products: settings.products,
    passEveryHours: PASS_EVERY_HOURS,
    pass:
      PROVEN_SHARE === undefined
        ? undefined
        : { ...IntegrityPass.DEFAULT_PASS, release: { ...IntegrityPass.DEFAULT_PASS.release, provenShare: PROVEN_SHARE } },
    onProgress: (line) => console.log(`  ${line}`),
    onBenignDiscounted: process.env.BENCH_TRACE_DISCOUNTS === "1" ? (lines) => console.log(lines.join("\n")) : undefined
  })
)

// ---- the report --------------------------------------------------------------------

const lines: Array<string> = []
const out = (line = "") => {
  lines.push(line)
  console.log(line)
}
const fateRow = (name: string, f: Fate, goal: string, ok: boolean) =>
  `| ${name} | ${n(f.cast + f.refused)} | ${pct(f.refused, f.cast + f.refused)} | ${pct(f.heldAtCast, f.cast)} | ${pct(f.held, f.cast)} | ${pct(f.discounted, f.cast)} | ${goal} ${mark(ok)} |`

out(
  `${settings.days} simulated days (seed ${SEED}, store ${STORE}): ${n(settings.products)} products (Zipf-popular), ${n(settings.agents)} agents ` +
    `registering over the month, ${n(settings.visitors)} anonymous visitors, ${settings.virals} viral products of ~${n(settings.fansPerViral)} fans, ` +
    `${settings.newsletters} newsletters; ${n(outcome.votes)} votes cast through Directory.vote in ${outcome.wallSeconds.toFixed(0)} s; ` +
    `the integrity pass every ${PASS_EVERY_HOURS} h (${n(outcome.passes.runs)} passes).`
)
out()
out(
  "Attacks: how far each moved its targets (trust_score points in its direction; the most-moved target), and when it was caught (goal: ≤ 5 points after the pass)"
)
out()
out(
  "| attack | what | votes recorded / refused | its target votes not counting / counting at ≤ 0.025 | at once | after the pass | peak | end of month | caught | goal |"
)
out("|---|---|---|---|---|---|---|---|---|---|")
/** Issue 58's goals at once, where it set one: small rings and fresh agents ≤ 10 points before any pass. */
const atOnceGoal: Record<string, number> = { "small rings": 10, "fresh agents": 10 }
for (const f of outcome.attacks) {
  const recorded = f.votes.cast
  const registered = f.registrations.tried > 0 ? `; ${n(f.registrations.got)} of ${n(f.registrations.tried)} registrations` : ""
  const caught =
    f.caughtAfterHours === undefined
      ? "never"
      : f.caughtAfterHours <= 0
        ? "before it began"
        : `${f.caughtAfterHours.toFixed(0)} h after its first vote`
  const onceGoal = atOnceGoal[f.attack.name]
  const goal =
    onceGoal === undefined
      ? `≤ 5 ${mark(Math.max(f.afterPass, f.atEnd) <= 5)}`
      : `≤ ${onceGoal} at once, ≤ 5 after ${mark(f.atOnce <= onceGoal && Math.max(f.afterPass, f.atEnd) <= 5)}`
  const t = f.onTargets
  out(
    `| ${f.attack.name} | ${f.attack.what} | ${n(recorded)} / ${n(f.votes.refused)}${registered} | ${n(t.discounted + t.held)} / ${n(t.light)} of ${n(t.cast)} | ${f.atOnce} | ${f.afterPass} | ${f.peak} | ${f.atEnd} | ${caught} | ${goal} |`
  )
}
const camouflaged = outcome.attacks.find((f) => f.attack.name === "camouflaged ring")
if (camouflaged !== undefined) {
  const t = camouflaged.onTargets
  const off = t.discounted + t.held + t.light
  out()
  out(
    `Camouflaged ring: ${n(off)} of its ${n(t.cast)} target votes (${pct(off, t.cast)}) are discounted, held or weigh a fortieth of a vote or less (goal ≥ 90 % ${mark(off >= 0.9 * t.cast)}).`
  )
}
const rings = outcome.attacks.filter((f) => f.attack.name.endsWith("ring"))
const ringVotes = rings.reduce((s, f) => s + f.onTargets.cast, 0)
const ringOff = rings.reduce((s, f) => s + f.onTargets.discounted + f.onTargets.held, 0)
const cover = rings.reduce((s, f) => s + f.votes.cast - f.onTargets.cast, 0)
const coverOff = rings.reduce((s, f) => s + f.votes.discounted + f.votes.held - f.onTargets.discounted - f.onTargets.held, 0)
out()
out(
  `Ring votes on their targets that do not count at the end: ${n(ringOff)} of ${n(ringVotes)}, ${pct(ringOff, ringVotes)} (goal ≥ 95 % ${mark(ringOff >= 0.95 * ringVotes)}); ` +
    `of their camouflage votes on popular products, ${n(coverOff)} of ${n(cover)}.`
)
out()
out("Benign voters: their votes refused (429), held when cast, and held or discounted at the end of the month (after the last pass)")
out()
out("| group | votes | refused | held when cast | held at the end | discounted | goal |")
out("|---|---|---|---|---|---|---|")
for (const [group, f] of [...outcome.benign].sort()) {
  out(fateRow(group, f, "≤ 1 % held, none discounted", f.held <= 0.01 * f.cast && f.discounted === 0))
}
const all = [...outcome.benign.values()].reduce(
  (s, f) => ({
    cast: s.cast + f.cast,
    refused: s.refused + f.refused,
    heldAtCast: s.heldAtCast + f.heldAtCast,
    counted: s.counted + f.counted,
    light: s.light + f.light,
    held: s.held + f.held,
    discounted: s.discounted + f.discounted
  }),
  { cast: 0, refused: 0, heldAtCast: 0, counted: 0, light: 0, held: 0, discounted: 0 }
)
out(fateRow("all benign", all, "≤ 1 % held, none discounted", all.held <= 0.01 * all.cast && all.discounted === 0))
out()
for (const [group, r] of outcome.benignRegistrations) out(`Benign registrations (${group}): ${n(r.got)} of ${n(r.tried)} succeeded.`)
out()
out(`Groups found: ${outcome.groups.length}`)
for (const g of outcome.groups) {
  out(
    `- ${g.method}: ${[...g.members].map(([who, k]) => `${k} ${who}`).join(", ")}; ${g.products} products, ${g.votes} votes; coverage ${g.coverage}, focus ${g.focus}: ${g.discounted ? "discounted" : "for review"}`
  )
}
for (const discounted of [false, true]) {
  // Where the benign votes that do not count at the end are: by the day they were cast, and by their product's popularity.
  const votes = outcome.heldAtEnd.filter((h) => h.discounted === discounted)
  if (votes.length === 0) continue
  const byDay = new Map<number, number>()
  const byRank = new Map<string, number>()
  const bucket = (rank: number) => (rank < 10 ? "0-9" : rank < 100 ? "10-99" : rank < 1_000 ? "100-999" : "1000+")
  for (const h of votes) {
    byDay.set(h.day, (byDay.get(h.day) ?? 0) + 1)
    byRank.set(bucket(h.rank), (byRank.get(bucket(h.rank)) ?? 0) + 1)
  }
  out(
    `Benign votes ${discounted ? "discounted" : "held"} at the end, by the day cast: ${[...byDay]
      .sort((a, b) => a[0] - b[0])
      .map(([d, k]) => `day ${d} ${n(k)}`)
      .join(", ")}; ` +
      `by product rank: ${[...byRank]
        .sort()
        .map(([b, k]) => `${b} ${n(k)}`)
        .join(", ")}` +
      (discounted
        ? `; products ${[...new Set(votes.map((h) => h.rank))].slice(0, 12).join(", ")}; cast ${votes
            .slice(0, 12)
            .map((h) => new Date(h.at).toISOString())
            .join(", ")}.`
        : ".")
  )
}
const within = (gaps: ReadonlyArray<number>) => gaps.filter((g) => g <= 3).length
out(
  `Benign products, their judged score against the same votes unweighed: within 3 points for ${n(within(outcome.weighing.all))} of ${n(outcome.weighing.all.length)} (${pct(within(outcome.weighing.all), outcome.weighing.all.length)}; the rest are products anonymous visitors voted, whose votes weigh a hundredth); ` +
    `of those whose month's votes all came from agents with standing, ${n(within(outcome.weighing.byStanding))} of ${n(outcome.weighing.byStanding.length)} (goal: all ${mark(within(outcome.weighing.byStanding) === outcome.weighing.byStanding.length)}).`
)
const ms = outcome.passes.millis
out(
  `The pass: median ${median(ms).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms, reading ${n(Math.round(median(outcome.passes.votesRead)))} votes (median; max ${n(Math.max(...outcome.passes.votesRead))}) of its 8-day window.`
)

// The month at full scale writes its section unless BENCH_WRITE=0; another scale only with BENCH_WRITE=1, in a section of its own.
if ((process.env.BENCH_WRITE !== "0" && SCALE === 1) || process.env.BENCH_WRITE === "1") {
  writeSection(
    `Crowd defense: the simulation (${STORE} store${SCALE === 1 ? "" : `, ${SCALE}× its people`})`,
    `\`${[
      STORE === "memory" ? "" : `BENCH_STORE=${STORE} `,
      SCALE === 1 ? "" : `BENCH_SCALE=${SCALE} `,
      PASS_EVERY_HOURS === 1 ? "" : `BENCH_PASS_EVERY_HOURS=${PASS_EVERY_HOURS} `
    ].join(
      ""
    )}npm run bench:crowd\`, ${new Date().toISOString().slice(0, 10)}: bench/src/crowd.ts; what each attack and group is, in bench/src/crowd/.\n\n${lines.join("\n")}`
  )
}

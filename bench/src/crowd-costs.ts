/**
 * The attack-cost table (issue 58; docs/threat-model.md, "What an attacker can still buy"): for each kind of
 * identity, the fewest that move a product's judged score by 5 points, at once and after the integrity pass, found
 * by trials in synthetic time (bench/src/crowd/costs.ts). Writes its section of docs/benchmarks.md.
 *
 *   npm run bench:crowd-costs                 # every attacker against every target, up to 4,096 identities
 *   BENCH_MAX=512 npm run bench:crowd-costs   # a quicker look
 */
import { Effect } from "effect"
import { ATTACKERS, fewest, TARGETS } from "./crowd/costs.ts"
import { writeSection } from "./lib.ts"

const MAX = Number(process.env.BENCH_MAX ?? 4_096)

const lines: Array<string> = []
const out = (line = "") => {
  lines.push(line)
  console.log(line)
}
const shown = (n: number | undefined) => (n === undefined ? `more than ${MAX.toLocaleString("en")}` : `≈ ${n.toLocaleString("en")}`)

const started = Date.now()
out(
  `The fewest identities that move a product's judged score (trust_score) by 5 points, by kind, found by trials in synthetic time: a directory a week old of 40 products, 200 benign agents and 300 anonymous visitors, the attack sent through Directory.vote, then the integrity pass (bench/src/crowd/costs.ts). "≈": within 5 %.`
)
out()
out("| identities | target | to move 5 points at once | to hold 5 points after the pass |")
out("|---|---|---|---|")
for (const attacker of ATTACKERS) {
  for (const target of TARGETS) {
    const atOnce = await Effect.runPromise(fewest(attacker, target, (m) => m.atOnce, MAX))
    const after = await Effect.runPromise(fewest(attacker, target, (m) => m.afterPass, MAX))
    out(`| ${attacker.name}: ${attacker.identities} | ${target.name} | ${shown(atOnce)} | ${shown(after)} |`)
  }
}
out()
out(`Found in ${((Date.now() - started) / 1000).toFixed(0)} s.`)

if (process.env.BENCH_WRITE !== "0") {
  writeSection(
    "Crowd defense: what it costs to move a score (issue 58)",
    `\`${MAX === 4_096 ? "" : `BENCH_MAX=${MAX} `}npm run bench:crowd-costs\`, ${new Date().toISOString().slice(0, 10)}.\n\n${lines.join("\n")}`
  )
}

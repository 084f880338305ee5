/** ProblemStore over the in-memory state: the same phrasings, counts and budgets as SqlProblemStore's query. */
import { Effect, Layer } from "effect"
import { canonicalProductId, ProblemStore, REPORT_TEXT_BUDGET, type ReportedPhrasing, VOTE_WEIGHTS } from "@productdir/domain"
import { announce, MemoryState, type Report, type State } from "./State.ts"

const WINDOW_MS = REPORT_TEXT_BUDGET.windowHours * 3_600_000

interface Placed {
  readonly product: string
  readonly voter: string
  readonly report: Report
}

/** (at, product, voter) ascending: the order budgets are drawn in, as the query's row comparison orders them. */
const before = (a: Placed, b: Placed): boolean =>
  a.report.at.getTime() < b.report.at.getTime() ||
  (a.report.at.getTime() === b.report.at.getTime() && (a.product < b.product || (a.product === b.product && a.voter < b.voter)))

/** How many of `others` (reports of the same voter, or network) fall in the window before `r`. */
const earlierInWindow = (others: ReadonlyArray<Placed>, r: Placed): number => {
  const from = r.report.at.getTime() - WINDOW_MS
  let n = 0
  for (const o of others) if (o.report.at.getTime() > from && before(o, r)) n++
  return n
}

const add = (map: Map<string, Array<Placed>>, key: string, placed: Placed) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [placed])
  else list.push(placed)
}

const make = (state: State) =>
  ProblemStore.of({
    replies: (id) =>
      Effect.sync(() =>
        [...(state.replies.get(canonicalProductId(id))?.values() ?? [])].sort((a, b) => (a.problemId < b.problemId ? -1 : 1))
      ),
    reply: (id, reply) =>
      Effect.sync(() => {
        const product = canonicalProductId(id)
        const replies = state.replies.get(product) ?? new Map()
        replies.set(reply.problemId, reply)
        state.replies.set(product, replies)
        announce(state, [product])
      }),
    reported: (id) =>
      Effect.sync(() => {
        // Every live report, by voter and by network: a report's budget is drawn across products.
        const byVoter = new Map<string, Array<Placed>>()
        const byNetwork = new Map<string, Array<Placed>>()
        for (const [product, byKey] of state.reports) {
          for (const voters of byKey.values()) {
            for (const [voter, report] of voters) {
              if (report.revokedAt !== null) continue
              const placed = { product, voter, report }
              add(byVoter, voter, placed)
              if (report.network !== null) add(byNetwork, report.network, placed)
            }
          }
        }
        const phrasings = new Map<string, { -readonly [K in keyof ReportedPhrasing]: ReportedPhrasing[K] }>()
        for (const [key, voters] of state.reports.get(id) ?? []) {
          for (const [voter, report] of voters) {
            // A report counts as its vote does: a revoked agent's stay, marked, and are not counted, nor are those of
            // votes held (until the integrity pass counts them) or discounted.
            const vote = state.votes.get(id)?.get(voter)
            if (report.revokedAt !== null || (vote?.counting ?? "counted") !== "counted") continue
            const weight = vote?.weight ?? VOTE_WEIGHTS.address
            const placed = { product: id, voter, report }
            const allowance = weight >= VOTE_WEIGHTS.standing ? REPORT_TEXT_BUDGET.standingVoter : REPORT_TEXT_BUDGET.voter
            const quoted =
              earlierInWindow(byVoter.get(voter) ?? [], placed) < allowance &&
              (report.network === null || earlierInWindow(byNetwork.get(report.network) ?? [], placed) < REPORT_TEXT_BUDGET.network)
            const agent = voter.startsWith("agent:")
            const slot = `${key}\u0000${report.summary}\u0000${quoted}`
            const known = phrasings.get(slot)
            if (known === undefined) {
              phrasings.set(slot, {
                key,
                text: report.summary,
                agents: agent ? 1 : 0,
                addresses: agent ? 0 : 1,
                weight,
                quoted,
                firstReportedAt: report.at,
                lastReportedAt: report.at
              })
              continue
            }
            if (agent) known.agents++
            else known.addresses++
            known.weight += weight
            if (report.at < known.firstReportedAt) known.firstReportedAt = report.at
            if (report.at > known.lastReportedAt) known.lastReportedAt = report.at
          }
        }
        return [...phrasings.values()]
      })
  })

export const layer = Layer.effect(ProblemStore, MemoryState.useSync(make))

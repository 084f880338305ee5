/**
 * `productdir_votes_total`: every vote the Directory was asked for, over HTTP, MCP or A2A alike, by
 * `outcome` (`recorded`, `unchanged`, `changed`, or `limited`: refused by a rate limit, whether the
 * voter's, the client's or its network's) and by how it counts now (`counting`: `counted`, `held`
 * for the integrity pass, `discounted`; `none` for a refused vote). Votes that fail before they are
 * cast (an unknown product, a revoked agent) are not votes: the request metrics count them by status.
 */
import { Effect, Layer, Metric } from "effect"
import { Admission, Directory } from "@productdir/usecases"

export const VOTES = "productdir_votes_total"

const votes = (outcome: string, counting: string) =>
  Metric.counter(VOTES, {
    description: "Votes by outcome (recorded, unchanged, changed, limited) and how they count (counted, held, discounted).",
    incremental: true,
    attributes: { outcome, counting }
  })

const LIMITED = votes("limited", "none")
const series = new Map<string, Metric.Counter<number>>()
const counterOf = (outcome: string, counting: string) => {
  const key = `${outcome} ${counting}`
  let counter = series.get(key)
  if (counter === undefined) {
    counter = votes(outcome, counting)
    series.set(key, counter)
  }
  return counter
}

/** The Directory of `directory`, its votes counted. */
export const countVotes = <E, R>(directory: Layer.Layer<Directory.Directory, E, R>) =>
  Layer.effect(
    Directory.Directory,
    Effect.map(Effect.service(Directory.Directory), (inner) =>
      Directory.Directory.of({
        ...inner,
        vote: (ballot, caster) =>
          Effect.tap(inner.vote(ballot, caster), (result) =>
            Metric.update(result._tag === "Limited" ? LIMITED : counterOf(result.outcome.status, result.outcome.counting), 1)
          )
      })
    )
  ).pipe(Layer.provide(directory))

/** The Admission of `admission`: a signed vote draws on its client's budget before its proof is checked, and refused there, it is a limited vote. */
export const countAdmissions = <E, R>(admission: Layer.Layer<Admission.Admission, E, R>) =>
  Layer.effect(
    Admission.Admission,
    Effect.map(Effect.service(Admission.Admission), (inner) =>
      Admission.Admission.of({
        ...inner,
        admit: (address) =>
          Effect.tap(inner.admit(address), (decision) => (decision._tag === "Limited" ? Metric.update(LIMITED, 1) : Effect.void))
      })
    )
  ).pipe(Layer.provide(admission))

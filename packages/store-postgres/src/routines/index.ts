/**
 * The routines the service runs, in the order they are installed (a SQL function's body is checked
 * when it is created, so what it calls comes first): SQL files under sql/, one per concern, each
 * routine in it under its marker (Routine.ts, `routinesOf`). Where each one lives, and how a change of
 * one ships: docs/architecture.md, "Routines".
 */
import { DESCRIPTION_FIELD_LIMIT, MAX_PLANS, MILLI, PRIOR, SEARCH_TEXT_LIMIT } from "@productdir/domain"
import { type Routine, routinesIn } from "./Routine.ts"

/**
 * What a query word a product has is worth in its candidates' sums beside its lexemes' scores: more than every score
 * of a query together (each below 1), so that a sum orders products first by how many of the query's words they have.
 */
const WORD = 1000

/**
 * The judged score's function (sql/trust.sql) for a given prior, in thousandths of a vote: the domain's, or another
 * (tests of a rule change).
 */
export const judgedScoreWith = (prior: { readonly votes: number; readonly share: number }): Routine =>
  routinesIn("trust", { PRIOR_UP: prior.votes * prior.share * MILLI, PRIOR_VOTES: prior.votes * MILLI })[0]!

export const ROUTINES: ReadonlyArray<Routine> = [
  // Accents folded, the searched text and its vectors, the lists a search at scale reads.
  ...routinesIn("search", { SEARCH_TEXT_LIMIT }),
  ...routinesIn("searchCandidates", { WORD }),
  // What a search answer reads of its candidates.
  ...routinesIn("describe", { DESCRIPTION_FIELD_LIMIT, MAX_PLANS }),
  judgedScoreWith(PRIOR),
  ...routinesIn("countedVotes"),
  ...routinesIn("changeStamps"),
  ...routinesIn("tokenBuckets"),
  ...routinesIn("castVote")
]

export { type Installed, installRoutines } from "./install.ts"
export { hashOf, type Rewrite, type Routine } from "./Routine.ts"

/**
 * The routines the service runs, in the order they are installed (a SQL function's body is checked
 * when it is created, so what it calls comes first). Where each one lives, and how a change of one
 * ships: docs/architecture.md, "Routines".
 */
import { castVote, castVotes, castVoteWithin } from "./castVote.ts"
import { reportChanged, stampChange } from "./changeStamps.ts"
import { countedVotes } from "./countedVotes.ts"
import type { Routine } from "./Routine.ts"
import { buildSearchLists, buildSearchStarts, lexemeScore, searchBody, searchVector, unaccent } from "./search.ts"
import { searchCandidates } from "./searchCandidates.ts"
import { takeTokens } from "./tokenBuckets.ts"
import { trustScore } from "./trust.ts"

export const ROUTINES: ReadonlyArray<Routine> = [
  unaccent,
  searchBody,
  searchVector,
  lexemeScore,
  buildSearchLists,
  buildSearchStarts,
  searchCandidates,
  trustScore,
  countedVotes,
  stampChange,
  reportChanged,
  takeTokens,
  castVotes,
  castVote,
  castVoteWithin
]

export { type Installed, installRoutines } from "./install.ts"
export { hashOf, type Rewrite, type Routine } from "./Routine.ts"
export { judgedScoreWith } from "./trust.ts"

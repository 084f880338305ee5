export * as Admission from "./Admission.ts"
export * as AgentAdministration from "./AgentAdministration.ts"
export * as Agents from "./Agents.ts"
export { EnrolmentLimited, InvalidCredentials, type Registration } from "./Agents.ts"
export * as AgentKeys from "./AgentKeys.ts"
export { makeBatchOrder, type Ordered } from "./BatchOrder.ts"
export * as CatalogExport from "./CatalogExport.ts"
export * as CatalogImport from "./CatalogImport.ts"
export type { ImportOptions, ImportResult, Tally, Warning } from "./CatalogImport.ts"
export * as Directory from "./Directory.ts"
export * as Publishing from "./Publishing.ts"
export * as PublisherAdministration from "./PublisherAdministration.ts"
export type { Ballot, DirectorySettings, ReadError, VoteResult } from "./Directory.ts"
export * from "./IdTable.ts"
export * from "./ImportChecks.ts"
export {
  DEFAULT_ANONYMOUS_VOTES,
  DEFAULT_DIRECTORY_FETCHES,
  DEFAULT_REGISTRATIONS,
  DEFAULT_REGISTRATIONS_PER_ADDRESS,
  formatBudgets,
  NEIGHBOURHOOD,
  NETWORK_LEVELS,
  type NetworkBudgets,
  type NetworkLevel,
  networkOf,
  networksOf
} from "./network.ts"
export * from "./Reconciliation.ts"
export * as VoterIdentity from "./VoterIdentity.ts"
export * as GroupReview from "./GroupReview.ts"
export * as IntegrityPass from "./integrity/IntegrityPass.ts"
export type { PassReport, PassSettings } from "./integrity/IntegrityPass.ts"
export { DEFAULT_LOCKSTEP, findLockstep, findOverlap, type FoundGroup, type LockstepSettings } from "./integrity/coordinatedGroups.ts"
export { type AddressSettings, DEFAULT_ADDRESSES, findAddressSurges } from "./integrity/addresses.ts"
export { DEFAULT_RELEASE, type ReleaseSettings, releases } from "./integrity/release.ts"
export { voterRanks } from "./integrity/ranks.ts"

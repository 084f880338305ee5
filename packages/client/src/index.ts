export * from "./ProductdirClient.ts"
export * from "@productdir/contract"
/** The shapes `getEntity` answers, by format: named here so users need not import the domain package. */
export type { AgentView, ProductRecord } from "@productdir/domain"

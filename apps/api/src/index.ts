export * as ApiConfig from "./config.ts"
export { Lifecycle } from "@productdir/edge/lifecycle"
export { seedSampleIfEmpty } from "./seed.ts"
export * from "./server.ts"

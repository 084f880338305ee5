export * as ApiConfig from "./ApiConfig.ts"
export { Lifecycle } from "./http/lifecycle.ts"
export { seedSampleIfEmpty } from "./seed.ts"
export * from "./server.ts"

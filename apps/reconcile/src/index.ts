export * from "./errors.ts"
export * from "./schedule.ts"

export * from "./exit.ts"
export * from "./logging.ts"
export * from "./logLevel.ts"
export * from "./progress.ts"

export * from "./errors.ts"
export * from "./exporter.ts"
export * from "./records.ts"

export * from "./errors.ts"
export * from "./output.ts"

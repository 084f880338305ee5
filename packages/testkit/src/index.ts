export * from "./Backdoor.ts"
export * from "./contract.ts"
export * from "./generator.ts"
export * from "./random.ts"

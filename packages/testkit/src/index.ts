export * from "./Backdoor.ts"
export * from "./inputs.ts"
export * from "./suite.ts"
export * from "./packages.ts"

export * from "./ProductdirClient.ts"
export * from "@productdir/contract"

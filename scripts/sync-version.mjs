#!/usr/bin/env node
// Writes packages/contract/src/version.ts from the contract's package.json. Run after
// `changeset version` (npm run version does both): every package is versioned together,
// so this one constant is what the API, the MCP server and the CLIs report.
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const { version } = JSON.parse(readFileSync(resolve(root, "packages/contract/package.json"), "utf8"))
const target = resolve(root, "packages/contract/src/version.ts")
const text = `/**
 * The version every productdir package and entry point reports. The packages are
 * versioned together (.changeset/config.json); scripts/sync-version.mjs writes this
 * file from the contract's package.json after \`changeset version\`.
 */
export const VERSION = "${version}"
`
if (readFileSync(target, "utf8") !== text) writeFileSync(target, text)
console.log(`version ${version}`)

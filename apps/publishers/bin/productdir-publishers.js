#!/usr/bin/env node
// Committed launcher: npm links bins at install time, before the build creates dist/.
// The compile cache (in the OS temp directory) halves start-up, which is most of a short run.
// A namespace import, not a named one: an older Node must reach the version check below, and a named
// import of an export it lacks (enableCompileCache) fails before any line runs.
import * as nodeModule from "node:module"

// The oldest Node the apps and their dependencies run on (the root package.json's engines): node:sqlite,
// undici 8. `npx productdir-publishers` and `npm run …` use the Node 24 that npm install brings, whatever the PATH's is.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `productdir-publishers needs Node.js 22.19 or later, not ${process.version}: run it as \`npx productdir-publishers\` in the repository (it uses the Node 24 npm install brought), or install a newer Node.\n`
  )
  process.exit(2)
}

nodeModule.enableCompileCache()
await import("../dist/main.js")

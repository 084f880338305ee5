/** The import CLI as a real process, against the test stores of @productdir/postgres/testing. */
import { spawnApp } from "@productdir/store-postgres/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export { testTargets as targets, type TestTarget as Target } from "@productdir/store-postgres/testing"

export const BIN = resolve(import.meta.dirname, "..", "bin", "productdir-import.js")

export const spawnCli = (args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string) => spawnApp(BIN, args, env, stdin)

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, stdin?: string) => spawnCli(args, env, stdin).done

export const workDir = () => mkdtempSync(join(tmpdir(), "productdir-import-test-"))

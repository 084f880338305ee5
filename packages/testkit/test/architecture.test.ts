/**
 * The package boundaries of docs/architecture.md, enforced: every import of
 * every source file is checked against its package's row of the table there,
 * every package a source file imports is declared in its manifest, and no
 * module imports itself through others (a loop makes a reader hold every file
 * of it in mind at once, and its modules' start order an accident). The doors
 * (HTTP, MCP, A2A) stand on the contract, the use cases and what they share,
 * never on each other: a feature lands in one door without reading the others.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { builtinModules } from "node:module"
import { dirname, join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..", "..", "..")

interface Rule {
  readonly name: string
  readonly folder: string
  readonly allowed: ReadonlyArray<string>
}

/** The rows of the table under "The packages and what each may import". */
const rules = (): ReadonlyArray<Rule> => {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8")
  const table = doc.slice(doc.indexOf("| package | folder | may import |"))
  return table
    .split("\n")
    .slice(2)
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [name, folder, allowed] = line
        .split("|")
        .slice(1, 4)
        .map((cell) => cell.trim())
      const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)
      return { name: ticks(name!)[0]!, folder: ticks(folder!)[0]!, allowed: ticks(allowed!) }
    })
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(entry) ? [path] : []
  })

const importsOf = (file: string): Array<string> => {
  const text = readFileSync(file, "utf8")
  return [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm
    )
  ].map((m) => m[1] ?? m[2] ?? m[3]!)
}

/** The package a specifier names: `effect/http` → `effect`, `@effect/sql-pg/x` → `@effect/sql-pg`. */
const packageOf = (specifier: string): string =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!

const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier)

const permits = (allowed: ReadonlyArray<string>, specifier: string): boolean => {
  if (isBuiltin(specifier)) {
    const name = specifier.replace(/^node:/, "").split("/")[0]!
    return allowed.includes("node:*") || allowed.includes(`node:${name}`)
  }
  return allowed.includes(packageOf(specifier))
}

/** The loops of relative imports among `files`: each as its files, from the first in path order, round to it again. */
const importLoops = (files: ReadonlyArray<string>): Array<Array<string>> => {
  const known = new Set(files)
  const edges = new Map(
    files.map((file) => [
      file,
      importsOf(file)
        .filter((specifier) => specifier.startsWith("."))
        .map((specifier) => resolve(dirname(file), specifier))
        .filter((target) => known.has(target))
    ])
  )
  // Tarjan's strongly connected components: a component of more than one file (or a file importing itself) is a loop.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const loops: Array<Array<string>> = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    for (;;) {
      const top = stack.pop()!
      onStack.delete(top)
      component.push(top)
      if (top === file) break
    }
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) loops.push(component.map((f) => relative(ROOT, f)).sort())
  }
  for (const file of [...files].sort()) if (!index.has(file)) visit(file)
  return loops
}

describe("package boundaries (docs/architecture.md)", () => {
  const table = rules()

  it("the table names every workspace package", () => {
    const workspaces = ["packages", "apps"].flatMap((group) =>
      readdirSync(join(ROOT, group))
        .map((dir) => `${group}/${dir}`)
        .filter((dir) => statSync(join(ROOT, dir, "package.json"), { throwIfNoEntry: false }))
    )
    expect(table.map((r) => r.folder).sort()).toEqual(workspaces.sort())
  })

  for (const rule of table) {
    it(`${rule.name} imports only what its row allows, and declares what it imports`, () => {
      const dir = join(ROOT, rule.folder)
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>
      const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])
      const offenders: Array<string> = []
      for (const file of sourceFiles(join(dir, "src"))) {
        for (const specifier of importsOf(file)) {
          if (specifier.startsWith(".")) continue
          const where = `${relative(ROOT, file)}: ${specifier}`
          if (!permits(rule.allowed, specifier)) offenders.push(`${where} (not allowed)`)
          else if (!isBuiltin(specifier) && !declared.has(packageOf(specifier))) offenders.push(`${where} (not in dependencies)`)
        }
      }
      expect(offenders).toEqual([])
    })
  }

  it("no production code depends on test code", () => {
    for (const rule of table.filter((r) => r.name !== "@productdir/testkit")) {
      const manifest = JSON.parse(readFileSync(join(ROOT, rule.folder, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>
      }
      const runtime = Object.keys(manifest.dependencies ?? {})
      expect(
        runtime.filter((d) => ["@productdir/testkit", "vitest", "@effect/vitest"].includes(d)),
        rule.name
      ).toEqual([])
    }
  })

  it("a door stands on the contract, the use cases and what the doors share: never on another door, a store or an app", () => {
    const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8")
    const line = doc.split("\n").find((l) => l.startsWith("The doors:"))
    const doors = [...(line ?? "").matchAll(/`(@productdir\/[^`]+)`/g)].map((m) => m[1]!)
    expect(doors.length).toBeGreaterThan(0)
    const standsOn = new Set([
      "@productdir/domain",
      "@productdir/contract",
      "@productdir/usecases",
      "@productdir/edge",
      "@productdir/read-cache"
    ])
    for (const door of doors) {
      const rule = table.find((r) => r.name === door)
      expect(rule, door).toBeDefined()
      expect(
        rule!.allowed.filter((name) => name.startsWith("@productdir/") && !standsOn.has(name)),
        door
      ).toEqual([])
    }
  })

  it("no module imports itself through others, in any package", () => {
    const loops = table.flatMap((rule) => importLoops(sourceFiles(join(ROOT, rule.folder, "src"))))
    expect(loops).toEqual([])
  })
})

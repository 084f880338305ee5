/**
 * Packages as users get them: `npm pack` of workspace packages, installed with
 * nothing else but what a README asks for into a fresh project outside the
 * workspace, and a README's example run there with plain Node.
 */
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..", "..", "..")

/** The environment of a user's shell: nothing of the workspace's npm run leaks into the nested npm. */
const userEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("npm_") || ["npm_config_cache", "npm_config_registry", "npm_config_userconfig"].includes(name)
    )
  )

/** Packs `packages/<name>` into `into`; returns the tarball's path. */
export const pack = (name: string, into: string): string => {
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", into], {
    cwd: join(ROOT, "packages", name),
    env: userEnv(),
    encoding: "utf8"
  })
  const [packed] = JSON.parse(output) as Array<{ readonly filename: string }>
  return join(into, packed!.filename)
}

const packed = new Map<string, string>()

const scratch: Array<string> = []

/** A folder in the system's temporary directory, kept until removeScratchFolders (packs are reused within a test file). */
export const scratchFolder = (prefix: string): string => {
  const folder = mkdtempSync(join(tmpdir(), prefix))
  scratch.push(folder)
  return folder
}

/** Removes every scratch folder made so far: a test file's afterAll (each run left its packs and projects in /tmp). */
export const removeScratchFolders = (): void => {
  for (const folder of scratch.splice(0)) rmSync(folder, { recursive: true, force: true })
  packed.clear()
}

/**
 * A third-party package as installed in the workspace, packed once per test process: the same files
 * a user gets from the registry, with no network (effect has no dependencies of its own).
 */
export const packInstalled = (name: string): string => {
  const known = packed.get(name)
  if (known !== undefined) return known
  const into = scratchFolder("productdir-pack-")
  // Its scripts are not run: an installed copy holds what was published, and its `prepare` (a build from sources the
  // registry's tarball does not carry, as porter2's) would fail.
  const output = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", into, join(ROOT, "node_modules", name)], {
    cwd: into,
    env: userEnv(),
    encoding: "utf8"
  })
  const [tarball] = JSON.parse(output) as Array<{ readonly filename: string }>
  const path = join(into, tarball!.filename)
  packed.set(name, path)
  return path
}

/**
 * What the registry would install beside workspace packages: their dependencies that are not workspace packages
 * (`@productdir/…`), and those packages' own dependencies in turn, each packed from its installed copy. Offline, npm
 * cannot look up a dependency a tarball names unless it is given as a tarball too (the npm cache holds the tarballs
 * `npm ci` fetched, not the registry's documents that resolving a version range reads).
 */
export const packDependenciesOf = (...names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const dependenciesOf = (manifest: string): ReadonlyArray<string> =>
    Object.keys((JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {})
  const found = new Set<string>()
  const visit = (dependency: string) => {
    if (dependency.startsWith("@productdir/") || found.has(dependency)) return
    found.add(dependency)
    for (const next of dependenciesOf(join(ROOT, "node_modules", dependency, "package.json"))) visit(next)
  }
  for (const name of names) for (const dependency of dependenciesOf(join(ROOT, "packages", name, "package.json"))) visit(dependency)
  return [...found].sort().map(packInstalled)
}

/**
 * TypeScript as the registry serves it, packed from the installed copy: the compiler's package and
 * the native binary of this platform (an optional dependency npm picks by platform; offline it must be
 * given, or `tsc` finds no compiler).
 */
export const packTypeScript = (): ReadonlyArray<string> => [
  packInstalled("typescript"),
  packInstalled(`@typescript/typescript-${process.platform}-${process.arch}`)
]

/** Node's types, with their one dependency: what a Node project type-checks `process` and `console` with. */
export const packNodeTypes = (): ReadonlyArray<string> => [packInstalled("@types/node"), packInstalled("undici-types")]

/** A fresh project outside the workspace with the given tarballs installed, offline. */
export const installInFreshProject = (tarballs: ReadonlyArray<string>): string => {
  const dir = scratchFolder("productdir-user-")
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }))
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--no-package-lock", ...tarballs], {
    cwd: dir,
    env: userEnv(),
    encoding: "utf8",
    stdio: "pipe"
  })
  return dir
}

/** The first ```js block of a package's README. */
export const readmeExample = (name: string): string => {
  const readme = readFileSync(join(ROOT, "packages", name, "README.md"), "utf8")
  const match = /```js\n([\s\S]*?)```/.exec(readme)
  if (match?.[1] === undefined) throw new Error(`packages/${name}/README.md has no js example`)
  return match[1]
}

/** Every fenced block of the given language in a package's README, in order. */
export const readmeExamples = (name: string, language: string): ReadonlyArray<string> => {
  const readme = readFileSync(join(ROOT, "packages", name, "README.md"), "utf8")
  const fence = "```"
  const blocks = [...readme.matchAll(new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`, "g"))].map((match) => match[1] ?? "")
  if (blocks.length === 0) throw new Error(`packages/${name}/README.md has no ${language} example`)
  return blocks
}

/** Runs a program in `dir`; resolves with its stdout, rejects with its stdout and stderr. */
const run = (dir: string, file: string, args: ReadonlyArray<string>, env: Record<string, string>): Promise<string> =>
  new Promise((resolveRun, reject) =>
    execFile(file, args, { cwd: dir, env: { ...userEnv(), ...env }, encoding: "utf8" }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stdout}${stderr}`)) : resolveRun(stdout)
    )
  )

/**
 * Runs `code` as an ES module in `dir` with plain Node; resolves with its stdout. Asynchronous,
 * so a server in the test's own process can answer the example meanwhile. A `file` ending in `.ts`
 * runs as TypeScript (Node strips the types, as it does for any project's .ts files).
 */
export const runExample = (dir: string, code: string, env: Record<string, string> = {}, file = "example.mjs"): Promise<string> => {
  writeFileSync(join(dir, file), code)
  return run(dir, process.execPath, [file], env)
}

/**
 * Writes `files` (`{ name: code }`) into `dir` and type-checks them with the project's own
 * `tsc --strict --noEmit`, the libraries' declarations included, with the options a new TypeScript
 * project on Node has. Rejects with the compiler's diagnostics.
 */
export const typeCheck = (dir: string, files: Record<string, string>): Promise<string> => {
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code)
  return run(
    dir,
    process.execPath,
    [
      join(dir, "node_modules", "typescript", "bin", "tsc"),
      "--strict",
      "--noEmit",
      "--module",
      "nodenext",
      "--target",
      "esnext",
      "--types",
      "node",
      ...Object.keys(files)
    ],
    {}
  )
}

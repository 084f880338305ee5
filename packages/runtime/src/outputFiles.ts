/**
 * Files a command line writes (a report, a metrics file): checked before the command does anything, so a
 * path that cannot be written is said at once, in one line, and not found out by a stack trace after the
 * work it was to report on is done.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs"
import { dirname } from "node:path"

/**
 * Why `path` cannot be written as a file, or undefined when it can. `replaced`: the file is written beside
 * itself and renamed over (a reader never sees half of it), which needs its folder writable, not the file.
 */
export const unwritableFile = (path: string, options: { readonly replaced?: boolean } = {}): string | undefined => {
  try {
    const folder = dirname(path)
    if (!existsSync(folder)) return `its folder ${folder} does not exist`
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`
    if (existsSync(path) && statSync(path).isDirectory()) return "it is a folder"
    accessSync(options.replaced === true || !existsSync(path) ? folder : path, constants.W_OK)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

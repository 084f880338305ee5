/**
 * Files a command line writes (a report, a metrics file): checked before the command does anything, so a
 * path that cannot be written is said at once, in one line, and not found out by a stack trace after the
 * work it was to report on is done.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs"
import { dirname } from "node:path"

/** Why `path` cannot be written as a file, or undefined when it can. */
export const unwritableFile = (path: string): string | undefined => {
  try {
    const folder = dirname(path)
    if (!existsSync(folder)) return `its folder ${folder} does not exist`
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`
    if (existsSync(path) && statSync(path).isDirectory()) return "it is a folder"
    accessSync(existsSync(path) ? path : folder, constants.W_OK)
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

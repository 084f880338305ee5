/**
 * A process that npm started (`npx productdir-reconcile --every 10m`, `npm run reconcile -- …`) stops when
 * npm does. npm hands SIGTERM to the shell it ran the command in, and that shell dies without passing it on:
 * the tool is left running under init, a scheduled reconcile repairing on its own with nobody to stop it.
 * So, under npm only (it says so in `npm_command`), the parent is looked at once a second; when it is gone
 * the process stops as on SIGTERM: the same clean stop, exit 0. A process detached on purpose (nohup,
 * setsid, a service manager) is not npm's child, and is left alone.
 */
const CHECK_EVERY_MS = 1_000

export const stopWithNpm = (): void => {
  if (process.env.npm_command === undefined) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    process.kill(process.pid, "SIGTERM")
  }, CHECK_EVERY_MS)
  // The check never keeps the process alive by itself.
  timer.unref()
}

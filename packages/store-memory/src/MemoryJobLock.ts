/** JobLock in this process: a semaphore per job name. For stores that live in one process. */
import { Effect, Layer, Option, Semaphore } from "effect"
import { JobLock, type LockOutcome } from "@productdir/domain"

const make = Effect.sync(() => {
  const locks = new Map<string, Semaphore.Semaphore>()
  const lockFor = (name: string) => {
    const existing = locks.get(name)
    if (existing) return existing
    const created = Semaphore.makeUnsafe(1)
    locks.set(name, created)
    return created
  }
  return JobLock.of({
    withLock: <A, E, R>(name: string, options: { readonly wait: boolean }, effect: Effect.Effect<A, E, R>) => {
      const lock = lockFor(name)
      const ran = Effect.map(effect, (value): LockOutcome<A> => ({ _tag: "Ran", value }))
      return options.wait
        ? lock.withPermit(ran)
        : Effect.map(
            lock.withPermitsIfAvailable(1)(ran),
            Option.getOrElse((): LockOutcome<A> => ({ _tag: "Busy" }))
          )
    }
  })
})

export const layer: Layer.Layer<JobLock> = Layer.effect(JobLock, make)

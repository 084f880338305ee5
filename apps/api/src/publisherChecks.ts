/**
 * Publishers' proofs read again on a schedule (docs/decisions.md, "Publishers"): a round every minute (or every
 * PUBLISHER_CHECK_EVERY, when shorter) reads the proof of each verified publisher last checked more than
 * PUBLISHER_CHECK_EVERY ago; three misses in a row suspend it. One process runs a round at a time (the job lock): two
 * APIs on one database do not count one miss twice.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { JobLock } from "@productdir/domain"
import { Publishing } from "@productdir/usecases"
import { ApiConfig } from "@productdir/edge/ApiConfig"

export const PublisherChecksLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* ApiConfig
    const publishing = yield* Publishing.Publishing
    const lock = yield* JobLock
    const round = lock.withLock("publisher-checks", { wait: false }, publishing.recheck(config.publisherCheckEvery)).pipe(
      Effect.tap((outcome) =>
        outcome._tag === "Ran" && outcome.value.checked > 0
          ? Effect.logInfo(`publisher checks: ${outcome.value.checked} read again, ${outcome.value.suspended} suspended`)
          : Effect.void
      ),
      // A round that failed (the store away) is tried again at the next tick; the API goes on.
      Effect.catchCause((cause) => Effect.logWarning("publisher checks failed; the next round tries again", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(round, Schedule.spaced(Duration.min(config.publisherCheckEvery, Duration.minutes(1)))))
  })
)

/**
 * A variant a run cannot cover (no PostgreSQL server, a store narrowed out) is reported as a skipped test
 * named with why, so that a green run says what it did not run instead of leaving it silently absent.
 */
import { describe, it } from "@effect/vitest"

export const reportLeftOut = (subject: string, leftOut: ReadonlyArray<{ readonly name: string; readonly reason: string }>) => {
  for (const { name, reason } of leftOut) {
    describe.skip(`${subject} on ${name}`, () => {
      it(`not run: ${reason}`, () => {})
    })
  }
}

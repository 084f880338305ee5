/** AuditTrail over the in-memory state: appended in order, read newest first. */
import { Effect, Layer } from "effect"
import { AuditTrail } from "@productdir/domain"
import { MemoryState, type State } from "./State.ts"

const make = (state: State) =>
  AuditTrail.of({
    record: (entry) => Effect.sync(() => void state.audit.push(entry)),
    list: ({ subject, limit }) =>
      Effect.sync(() =>
        state.audit
          .filter((entry) => subject === undefined || entry.subject === subject)
          .reverse()
          .slice(0, limit)
      )
  })

export const layer = Layer.effect(AuditTrail, MemoryState.useSync(make))

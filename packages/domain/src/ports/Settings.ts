/** Small named values the service keeps in its store (e.g. the generated voter-hash secret). */
import { Context, type Effect } from "effect"
import type { StoreError } from "../support/errors.ts"

export class Settings extends Context.Service<
  Settings,
  {
    /** The value under `key`; when there is none yet, stores `initial` first. Safe under concurrent starts. */
    readonly getOrInit: (key: string, initial: string) => Effect.Effect<string, StoreError>
  }
>()("@productdir/domain/Settings") {}

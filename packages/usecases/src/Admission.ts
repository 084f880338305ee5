/**
 * Admission: what a request pays before its proof costs the directory work. A signed request draws one vote from
 * its client's budget before its key directory is fetched or its nonce kept, and a key directory not in the cache
 * is fetched only within its networks' fetch budgets. Apart from the Directory: only the transport that checks
 * proofs calls it, before it knows who votes; the Directory's vote then draws on the voter's budget alone
 * (`Caster.budgetDrawn`).
 */
import { Context, Effect, Layer } from "effect"
import { type Caster, type Decision, type Limit, RateLimits, type StoreError } from "@productdir/domain"
import type { NetworkLevel } from "./network.ts"

export interface AdmissionSettings {
  /** Votes per minute per client (a keyed hash of its address); 0 turns the limit off. */
  readonly votesPerClient: number
  /**
   * Key-directory fetches per minute per network level (`v6/48`, `v4/24`, …): a signature naming a key directory
   * the service has not fetched lately makes it fetch one.
   */
  readonly directoryFetchesPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
}

/** A client's vote budget: the one `admit` draws on, and the one a vote draws on when nothing drew on it before. */
export const clientBudget = (address: string, votesPerClient: number): Limit => ({
  key: `address:${address}`,
  max: votesPerClient,
  windowSeconds: 60
})

export class Admission extends Context.Service<
  Admission,
  {
    /**
     * Draws one vote from the client network's budget (`address`, a keyed hash) ahead of a vote whose proof costs
     * work, so a client causes no more of that work than it may cast votes.
     */
    readonly admit: (address: string) => Effect.Effect<Decision, StoreError>
    /**
     * Draws one key-directory fetch from each level of the caster's networks, before a directory that is not
     * cached is fetched: one client's budget above is per address, and a /48 holds 65,536 of them, each of which
     * would otherwise have the directory fetch URLs of its choosing.
     */
    readonly admitFetch: (caster: Caster) => Effect.Effect<Decision, StoreError>
  }
>()("@productdir/usecases/Admission") {}

export const layer = (settings: AdmissionSettings) =>
  Layer.effect(
    Admission,
    Effect.gen(function* () {
      const limits = yield* RateLimits
      return Admission.of({
        admit: (address) => limits.take([clientBudget(address, settings.votesPerClient)]),
        admitFetch: (caster) =>
          limits.take(
            caster.networks.flatMap((network): ReadonlyArray<Limit> => {
              const max = settings.directoryFetchesPerNetwork[network.level as NetworkLevel] ?? 0
              return max <= 0 ? [] : [{ key: `fetch:${network.level}:${network.key}`, max, windowSeconds: 60 }]
            })
          )
      })
    })
  )

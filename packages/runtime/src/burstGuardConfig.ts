/**
 * CROWD_DEFENSE, BURST_FLOOR and BURST_FACTOR, read the same way by the API (which holds votes in a
 * burst) and productdir-reconcile (whose integrity pass judges them by the same guard).
 */
import { type BurstGuard, DEFAULT_BURST_GUARD } from "@productdir/domain"
import { Config, Schema } from "effect"

const count = (name: string, fallback: number) =>
  Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)), name).pipe(Config.withDefault(fallback))

/** The burst guard, or undefined with CROWD_DEFENSE=off (no holds, no integrity pass: every vote counts at once). */
export const burstGuardConfig: Config.Config<BurstGuard | undefined> = Config.all({
  crowdDefense: Config.Literals(["on", "off"], "CROWD_DEFENSE").pipe(Config.withDefault("on" as const)),
  floor: count("BURST_FLOOR", DEFAULT_BURST_GUARD.floor),
  factor: count("BURST_FACTOR", DEFAULT_BURST_GUARD.factor)
}).pipe(
  Config.map(({ crowdDefense, floor, factor }) =>
    crowdDefense === "on" ? { floor, factor, reversal: DEFAULT_BURST_GUARD.reversal } : undefined
  )
)

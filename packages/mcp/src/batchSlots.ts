/**
 * MCP batches being answered at once. A batch's calls take their turns of the process's work one by one
 * (packages/edge/src/clients/fairShare.ts), but its answers are held until its last call is done (batches.ts): one
 * client with a batch on each of many connections would have the process hold an answer of up to a MiB for each,
 * and the copies made of them, past the API's capped heap. So a batch takes a slot before its first call:
 * BATCHES_AT_ONCE in the process, one per client network, given in turn by network as the work's permits are.
 * A batch that waits for a slot longer than HTTP_QUEUE_TIMEOUT, or finds its client's queue full, is answered 503
 * with Retry-After, nothing of it run: the answers the process holds for batches stay within
 * BATCHES_AT_ONCE × BATCH_ANSWER_BYTES, whoever sends them.
 */
import { Context, Effect, Layer } from "effect"
import { ApiConfig } from "@productdir/edge/ApiConfig"
import { make, type Share } from "@productdir/edge/clients/fairShare"

/** Batches answered at once in the process: their answers held are at most this many MiB (BATCH_ANSWER_BYTES each). */
export const BATCHES_AT_ONCE = 4

/** Batches one client network may have answered at once: its others wait for their turn. */
export const BATCHES_PER_CLIENT = 1

export class BatchSlots extends Context.Service<BatchSlots, Share>()("@productdir/mcp/BatchSlots") {}

/** BATCHES_AT_ONCE slots, BATCHES_PER_CLIENT a client, HTTP_QUEUE_TIMEOUT's wait. */
export const layer = Layer.effect(
  BatchSlots,
  Effect.flatMap(ApiConfig, (config) => make({ permits: BATCHES_AT_ONCE, perClient: BATCHES_PER_CLIENT, maxWait: config.queueTimeout }))
)

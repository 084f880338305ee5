/**
 * MCP in the metrics: `productdir_mcp_tool_calls_total` by `tool` and `outcome` (`ok`; `tool_error`,
 * a result the agent is told to act on, such as an unknown product; `error`, a JSON-RPC error), and
 * the sessions this process keeps (`productdir_mcp_sessions`), their subscriptions and open
 * notification streams, read when scraped.
 */
import { Effect, Exit, Layer, Metric } from "effect"
import { McpServer } from "effect/ai"
import { DirectoryTools } from "@productdir/contract"
import { McpSessions } from "@productdir/mcp/sessions"

export const TOOL_CALLS = "productdir_mcp_tool_calls_total"

/** Our tools by name; any other name a client sends is `other`, so the series stay few. */
const TOOLS = new Set(Object.keys(DirectoryTools.tools))

const series = new Map<string, Metric.Counter<number>>()
const callsOf = (tool: string, outcome: string) => {
  const key = `${tool} ${outcome}`
  let counter = series.get(key)
  if (counter === undefined) {
    counter = Metric.counter(TOOL_CALLS, {
      description: "MCP tools/call requests by tool and outcome (ok, tool_error, error).",
      incremental: true,
      attributes: { tool, outcome }
    })
    series.set(key, counter)
  }
  return counter
}

/** A tool's own failure comes back as a result marked isError; the middleware sees it only as a value. */
const isToolError = (result: unknown): boolean =>
  typeof result === "object" && result !== null && "isError" in result && result.isError === true

/** Counts every tools/call, around the tool's handler (global: every registration). */
export const ToolCallsCounted = McpServer.middleware()(
  (effect, { method, target }) =>
    method !== "tools/call"
      ? effect
      : Effect.onExit(effect, (exit) =>
          Metric.update(
            callsOf(TOOLS.has(target) ? target : "other", Exit.isFailure(exit) ? "error" : isToolError(exit.value) ? "tool_error" : "ok"),
            1
          )
        ),
  { global: true }
)

const gauge = (name: string, description: string) => Metric.gauge(name, { description })

/** The sessions' figures, read when the metrics are. */
export const SessionGaugesLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const sessions = yield* McpSessions
    const context = yield* Effect.context<never>()
    const read = (figure: (stats: ReturnType<typeof sessions.stats>) => number) => ({
      get: () => ({ value: figure(sessions.stats()) }),
      update: () => {},
      modify: () => {}
    })
    yield* Effect.acquireRelease(
      Effect.sync(() => [
        Metric.registerUnsafe(
          gauge("productdir_mcp_sessions", "MCP sessions this process keeps."),
          context,
          read((s) => s.sessions)
        ),
        Metric.registerUnsafe(
          gauge("productdir_mcp_subscriptions", "Resource subscriptions of those sessions."),
          context,
          read((s) => s.subscriptions)
        ),
        Metric.registerUnsafe(
          gauge("productdir_mcp_streams", "Notification streams (GET /mcp) open."),
          context,
          read((s) => s.streams)
        )
      ]),
      (registrations) =>
        Effect.sync(() => {
          for (const registration of registrations) registration.remove()
        })
    )
  })
)

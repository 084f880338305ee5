/**
 * Requests answered before Effect's HTTP stack sees them: the product reads the
 * read cache holds (cache/hotReads.ts). Agents read far more than they write,
 * and a cached read needs nothing but a lookup and a write; taking it through
 * the router and the middleware would cost most of its time. The server's
 * "request" events go to the hot handler first; whatever it does not answer
 * (misses, anything unusual, a draining server) goes on to Effect as before.
 */
import { Context, Effect, type Scope } from "effect"
import { type IncomingMessage, Server, type ServerOptions, type ServerResponse } from "node:http"

/** Answers the request and returns true, or leaves it alone and returns false. */
export type HotHandler = (request: IncomingMessage, response: ServerResponse) => boolean

/** An http.Server whose requests meet the hot handler first. */
export class HotPathServer extends Server {
  hot: HotHandler | undefined

  constructor(options: ServerOptions) {
    super(options)
  }

  override emit(event: string, ...args: Array<unknown>): boolean {
    if (event === "request" && this.hot !== undefined && this.hot(args[0] as IncomingMessage, args[1] as ServerResponse)) return true
    return super.emit(event, ...args)
  }
}

export class HotPath extends Context.Service<
  HotPath,
  {
    /** Puts `handler` in front of the server for the life of the scope. */
    readonly install: (handler: HotHandler) => Effect.Effect<void, never, Scope.Scope>
  }
>()("@productdir/api/HotPath") {}

export const hotPathOf = (server: HotPathServer) =>
  HotPath.of({
    install: (handler) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          server.hot = handler
        }),
        () =>
          Effect.sync(() => {
            server.hot = undefined
          })
      )
  })

/**
 * GET /docs: the API reference page (Scalar, from effect's HttpApiScalar),
 * made when it is first asked for. The page inlines Scalar's 6 MB script,
 * which would otherwise be loaded into every process at start and held in
 * its heap for good, read or not; most API processes never serve the page.
 * The constant reads (constantReads.ts) keep the first page made, compressed,
 * so it is made once.
 */
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiScalar } from "effect/http-api"
import { Api } from "@productdir/contract"

export const DOCS_PATH = "/docs"

/** The page, by building Scalar's route on its own and answering the current request with it. */
const renderPage = Effect.scoped(Effect.flatten(HttpRouter.toHttpEffect(HttpApiScalar.layer(Api, { path: DOCS_PATH }))))

export const DocsLive = HttpRouter.use((router) => router.add("GET", DOCS_PATH, renderPage))

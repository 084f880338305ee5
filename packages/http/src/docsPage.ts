/**
 * GET /docs, the API reference page (referencePage.ts: HTML rendered from the OpenAPI
 * document, no script, nothing from another origin), and GET /favicon.ico, the icon it
 * and browsers ask for. The page is made when it is first asked for; the constant reads
 * (constantReads.ts) keep it, compressed, so it is made once.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { OpenApi } from "effect/http-api"
import { Api } from "@productdir/contract"
import { FAVICON_PATH, favicon } from "./favicon.ts"
import { referencePage } from "./referencePage.ts"

export const DOCS_PATH = "/docs"

const renderPage = Effect.sync(() => HttpServerResponse.html(referencePage(OpenApi.fromApi(Api))))

export const DocsLive = HttpRouter.use((router) =>
  Effect.all([router.add("GET", DOCS_PATH, renderPage), router.add("GET", FAVICON_PATH, favicon)], { discard: true })
)

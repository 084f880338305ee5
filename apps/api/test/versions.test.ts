/**
 * A product's versions over HTTP (docs/decisions.md, "Versions"): each change keeps the version it replaced, and
 * `/products/{id}/versions/{n}` serves it exactly as the detail record served it while it was current; the list is
 * newest first, in pages; a version it never had, a product removed and a malformed number are refused as problems.
 * The same through the typed client made from the contract.
 */
import { reportLeftOut } from "@productdir/testkit"
import { storesLeftOut } from "@productdir/store-postgres/testing"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { CATALOG_FIELD_NAMES, CatalogStore, type ProductRecord, ProductVersion, VersionList } from "@productdir/domain"
import { apiClient, baseUrl, serverLayer, storeVariants } from "./harness.ts"
import { bodyOf, type ProblemBody, request } from "./http.ts"

/** What a version serves of the detail record: its content fields, its version and when it became current. */
const CONTENT_FIELDS = ["id", ...CATALOG_FIELD_NAMES, "trust_signals", "version", "updated_at"] as const

const pick = (record: Partial<Record<(typeof CONTENT_FIELDS)[number], unknown>>) =>
  Object.fromEntries(CONTENT_FIELDS.map((f) => [f, record[f]]))

const json = (url: string) =>
  Effect.map(request(url), (reply) => {
    expect(reply.status, `${url}: ${reply.text}`).toBe(200)
    return reply.json as Record<string, unknown>
  })

reportLeftOut("versions", storesLeftOut())
for (const variant of storeVariants()) {
  describe(`versions on ${variant.name}`, () => {
    layer(serverLayer(variant.stores()), { timeout: "120 seconds", excludeTestServices: true })((it) => {
      it.effect("each change keeps the version it replaced, served again exactly as it was", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* CatalogStore
          const product = yield* store.find("tallyhouse")
          const first = (yield* json(`${base}/products/${product.id}`)) as ProductRecord
          yield* store.upsert([
            { id: product.id, seed: product.seed, content: { ...product.content, ai_summary: "Rewritten by its vendor." } }
          ])
          const second = yield* json(`${base}/products/${product.id}`)
          expect(second.version).toBe(first.version + 1)

          const list = Schema.decodeUnknownSync(VersionList)(yield* json(`${base}/products/${product.id}/versions`), {
            onExcessProperty: "error"
          })
          expect(list).toMatchObject({ id: product.id, slug: "tallyhouse", current_version: second.version, next: null })
          expect(list.versions.map((v) => [v.version, v.current, v.href])).toEqual([
            [second.version, true, `/products/${product.id}/versions/${second.version}`],
            [first.version, false, `/products/${product.id}/versions/${first.version}`]
          ])
          expect(list.versions[0]!.updated_at).toBe(second.updated_at)
          expect(list.versions[1]!.superseded_at).toBe(second.updated_at)
          expect(list.versions[0]!.superseded_at).toBeNull()

          // The old version, field for field as the detail record served it.
          const old = yield* json(`${base}${list.versions[1]!.href}`)
          Schema.decodeUnknownSync(ProductVersion)(old, { onExcessProperty: "error" })
          expect(pick(old)).toEqual(pick(first))
          expect(old).toMatchObject({
            current: false,
            superseded_at: second.updated_at,
            versions_endpoint: `/products/${product.id}/versions`
          })
          // The current one, as the record serves it now.
          expect(pick(yield* json(`${base}/products/${product.id}/versions/${second.version}`))).toEqual(pick(second))

          // The typed client reads the same.
          const client = yield* apiClient
          const typed = yield* client.products.getVersion({ params: { id: product.id, version: first.version } })
          expect(typed.ai_summary).toBe(first.ai_summary)
        })
      )

      it.effect("the list is newest first, in pages whose next link goes on where they stop", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* CatalogStore
          const product = yield* store.find("gantry-planner")
          for (const n of [1, 2, 3]) {
            yield* store.upsert([{ id: product.id, seed: product.seed, content: { ...product.content, ai_summary: `Edit ${n}.` } }])
          }
          const current = (yield* store.find(product.id)).version
          const seen: Array<number> = []
          let next: string | null = `/products/${product.id}/versions?limit=2`
          while (next !== null) {
            const page = Schema.decodeUnknownSync(VersionList)(yield* json(`${base}${next}`))
            expect(page.versions.length).toBeLessThanOrEqual(2)
            seen.push(...page.versions.map((v) => v.version))
            next = page.next
          }
          expect(seen).toEqual([current, current - 1, current - 2, current - 3])
        })
      )

      it.effect("a version never had, a removed product and malformed numbers are problems, naming what is wrong", () =>
        Effect.gen(function* () {
          const base = yield* baseUrl
          const store = yield* CatalogStore
          const product = yield* store.find("keystone-vault")

          const missing = yield* request(`${base}/products/${product.id}/versions/${product.version + 5}`)
          expect(missing.status).toBe(404)
          expect(missing.headers.get("content-type")).toContain("application/problem+json")
          expect(bodyOf<ProblemBody>(missing).detail).toContain(`has no version ${product.version + 5} kept`)

          for (const bad of ["0", "abc", "1.5", "-1", "99999999999"]) {
            const reply = yield* request(`${base}/products/${product.id}/versions/${bad}`)
            expect(reply.status, bad).toBe(400)
            expect(
              bodyOf<ProblemBody>(reply).errors?.map((e) => e.path.join(".")),
              bad
            ).toEqual(["params.version"])
          }
          const badBefore = yield* request(`${base}/products/${product.id}/versions?before=zero&limit=0`)
          expect(badBefore.status).toBe(400)
          expect(
            bodyOf<ProblemBody>(badBefore)
              .errors?.map((e) => e.path.join("."))
              .sort()
          ).toEqual(["query.before", "query.limit"])

          const unknown = yield* request(`${base}/products/00000000-0000-4000-8000-000000000000/versions`)
          expect(unknown.status).toBe(404)

          yield* store.remove([product.id])
          const gone = yield* request(`${base}/products/${product.id}/versions/1`)
          expect(gone.status).toBe(410)
          expect((yield* request(`${base}/products/${product.id}/versions`)).status).toBe(410)
        })
      )
    })
  })
}

/**
 * CatalogStore on PostgreSQL (server or embedded PGlite). Its reads (find, list, completions, the
 * categories) go where the read router sends them: a replica that has replayed what they need, or
 * the primary (ReadReplicas.ts); what writes, and what an import reads to write, stays on the primary.
 */
import { Effect, Layer, Option, Result, Stream } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { PgClient } from "@effect/sql-pg"
import {
  CatalogStore,
  canonicalProductId,
  decodeCursor,
  encodeCursor,
  firstFreeSlug,
  type InvalidCursor,
  isProductId,
  type ListQuery,
  type NamedProduct,
  nameKey,
  type Product,
  type ProductId,
  type ProductDescription,
  type ProductInput,
  ProductNotFound,
  ProductRemoved,
  type Ranked,
  SEED_WEIGHT,
  searchFieldsOf,
  type Slug,
  slugify,
  suffixStems,
  sortKeyOf,
  StoreError,
  type UpsertOutcome,
  type UpsertStatus,
  type VersionEntry,
  VersionConflict,
  VersionNotFound
} from "@productdir/domain"
import { Announcer } from "./ChangeFeed.ts"
import { storeError } from "./errors.ts"
import { ReadRouter } from "./ReadReplicas.ts"
import { relevance, searchQuery, tsquery } from "./search.ts"
import { LIST_DEPTH, searchCandidates } from "./searchLists.ts"
import { stamp } from "./writeTime.ts"
import { contentOf, LISTED_COLUMNS, PRODUCT_COLUMNS, type ProductRow, toListedProduct, toProduct } from "./rows.ts"

/** Serialises slug assignment between concurrent imports (transaction-scoped advisory lock). */
const SLUG_LOCK = 0x70640001

/** Runs of inputs with no repeated id: ON CONFLICT may touch a row only once per statement. */
const distinctRuns = (inputs: ReadonlyArray<ProductInput>): Array<Array<ProductInput>> => {
  const runs: Array<Array<ProductInput>> = [[]]
  let seen = new Set<string>()
  for (const input of inputs) {
    const id = canonicalProductId(input.id)
    if (seen.has(id)) {
      runs.push([])
      seen = new Set()
    }
    seen.add(id)
    runs.at(-1)!.push(input)
  }
  return runs.filter((run) => run.length > 0)
}

/**
 * Results a search by relevance ranks on a large catalog (one with search lists): its best matches, every page of
 * them, each at the cost of its own page. Past them there are no more pages: a query that wants more is narrowed
 * (more words, a category), or listed in another order.
 */
export const RELEVANCE_WINDOW = LIST_DEPTH

/** Bytes of records (as JSON) one page of a scan carries at most; a record larger alone. */
export const SCAN_BYTES = 8 * 1024 * 1024

export const make = Effect.gen(function* () {
  const announcer = yield* Announcer
  const sql = yield* SqlClient.SqlClient
  const pg = yield* PgClient.PgClient
  const router = yield* ReadRouter

  /** A product's row, and why it was taken down when it was. */
  type FoundRow = ProductRow & { readonly removed_reason: string | null }
  const findRow = (db: SqlClient.SqlClient, ref: string, isId: boolean) =>
    isId
      ? db<FoundRow>`SELECT ${db.literal(PRODUCT_COLUMNS)}, removed_reason FROM products WHERE id = ${ref}`
      : db<FoundRow>`SELECT ${db.literal(PRODUCT_COLUMNS)}, removed_reason FROM products WHERE slug = ${ref}`

  const find = Effect.fn("CatalogStore.find")(function* (ref: string) {
    const isId = isProductId(ref)
    const key = isId ? canonicalProductId(ref) : ref
    // Nothing found on a replica is asked of the primary: the product may be newer than the feed's last poll.
    const rows = yield* router
      .product(
        key,
        isId,
        (db) => findRow(db, key, isId),
        (found) => found.length === 0
      )
      .pipe(storeError("find"))
    const row = rows[0]
    if (row === undefined) return yield* new ProductNotFound({ ref })
    router.learn(row.id, row.slug)
    if (row.removed_at !== null) {
      return yield* new ProductRemoved({
        id: row.id,
        removedAt: row.removed_at.toISOString(),
        ...(row.removed_reason === null ? {} : { reason: row.removed_reason })
      })
    }
    return toProduct(row)
  })

  /** Slugs for the new products of a batch: asked-for or from the name, then the first free one. */
  const assignSlugs = Effect.fn("CatalogStore.assignSlugs")(function* (fresh: ReadonlyArray<ProductInput>) {
    const wanted = fresh.map((input) => input.slug ?? slugify(input.content.name))
    // Each wanted slug and its `-N` variants, under every stem a variant can have (a long base is
    // cut to fit its suffix); stripping a trailing number first would make "Acme 12" look up every
    // "acme-…" slug in the catalog.
    const bases = [...new Set<Slug>(wanted)]
    const stems = [...new Set(bases.flatMap(suffixStems))]
    const taken = new Set<string>()
    if (bases.length > 0) {
      // An index lookup per base, and a range scan per stem (in C order, "-" < "." so
      // `stem-` ≤ slug < `stem.` holds every suffixed one). A LIKE ANY would scan the table.
      const rows = yield* sql<{ slug: string }>`
        SELECT p.slug FROM unnest(${bases}::text[]) AS b(base) JOIN products p ON p.slug = b.base
        UNION ALL
        SELECT p.slug FROM unnest(${stems}::text[]) AS s(stem)
          JOIN products p ON p.slug > s.stem || '-' AND p.slug < s.stem || '.'`
      for (const row of rows) taken.add(row.slug)
    }
    return wanted.map((slug) => {
      const free = firstFreeSlug(slug, (s) => taken.has(s))
      taken.add(free)
      return free
    })
  })

  /** The products rows of a run, as the upsert statement reads them. */
  const productRows = (run: ReadonlyArray<ProductInput>, slugById: ReadonlyMap<string, Slug>) =>
    run.map((input) => {
      const id = canonicalProductId(input.id)
      return {
        id,
        slug: slugById.get(id)!,
        name: input.content.name,
        name_key: nameKey(input.content.name),
        category: input.content.category,
        content: input.content,
        seed_up: input.seed.up,
        seed_down: input.seed.down
      }
    })

  /**
   * Inserts products or updates those that differ, so a rerun of the same data leaves version and
   * updated_at alone. Rows in id order: concurrent batches lock them in one order.
   */
  const writeProducts = (rows: ReturnType<typeof productRows>, now: Date, by: string | null) =>
    sql<{ id: string; created: boolean }>`
      INSERT INTO products AS p (id, slug, name, name_key, category, content, seed_up, seed_down, trust_up, trust_down,
        weight_up, weight_down, updated_at, edited_by)
      SELECT r.id, r.slug, r.name, r.name_key, r.category, r.content, r.seed_up, r.seed_down, r.seed_up, r.seed_down,
        r.seed_up * ${SEED_WEIGHT}, r.seed_down * ${SEED_WEIGHT}, ${now}, ${by}
      FROM jsonb_to_recordset(${pg.json(rows)}) AS r(
        id uuid, slug text, name text, name_key text, category text, content jsonb, seed_up bigint, seed_down bigint)
      ORDER BY r.id
      ON CONFLICT (id) DO UPDATE SET
        name = EXCLUDED.name, name_key = EXCLUDED.name_key, category = EXCLUDED.category,
        content = EXCLUDED.content,
        trust_up = p.trust_up + (EXCLUDED.seed_up - p.seed_up),
        trust_down = p.trust_down + (EXCLUDED.seed_down - p.seed_down),
        -- A seed count weighs a whole vote (packages/domain/src/trust/judgement.ts).
        weight_up = p.weight_up + (EXCLUDED.seed_up - p.seed_up) * ${SEED_WEIGHT},
        weight_down = p.weight_down + (EXCLUDED.seed_down - p.seed_down) * ${SEED_WEIGHT},
        seed_up = EXCLUDED.seed_up, seed_down = EXCLUDED.seed_down,
        version = p.version + 1, updated_at = ${now}, removed_at = NULL, removed_reason = NULL, edited_by = ${by}
      WHERE p.content IS DISTINCT FROM EXCLUDED.content
         OR p.seed_up IS DISTINCT FROM EXCLUDED.seed_up
         OR p.seed_down IS DISTINCT FROM EXCLUDED.seed_down
         OR p.removed_at IS NOT NULL
      RETURNING id, (xmax = 0) AS created`

  /**
   * Keeps the versions these inputs replace (product_versions, migration 22): the rows an upsert is about to change,
   * by the same rule it changes them, copied as they are. The rows are locked as they are read, so that a concurrent
   * upsert of one of them waits, and the version it replaces is the one this transaction makes.
   */
  const keepReplaced = (run: ReadonlyArray<ProductInput>, now: Date) =>
    sql`
      INSERT INTO product_versions (product_id, version, content, updated_at, superseded_at)
      SELECT p.id, p.version, p.content, p.updated_at, ${now}
      FROM products p
      JOIN jsonb_to_recordset(${pg.json(
        run.map((input) => ({
          id: canonicalProductId(input.id),
          content: input.content,
          seed_up: input.seed.up,
          seed_down: input.seed.down
        }))
      )}) AS r(id uuid, content jsonb, seed_up bigint, seed_down bigint) ON r.id = p.id
      WHERE p.content IS DISTINCT FROM r.content
         OR p.seed_up IS DISTINCT FROM r.seed_up
         OR p.seed_down IS DISTINCT FROM r.seed_down
         OR p.removed_at IS NOT NULL
      ORDER BY p.id
      FOR UPDATE OF p
      ON CONFLICT DO NOTHING`

  /**
   * The search vectors of these products (product_search, migration 7) and their plain words into
   * the vocabulary typos are corrected against, in one statement that parses each text once: the
   * vector is productdir_search_vector's (routines/sql/search.sql), spelled out here so that its plain-word
   * parts are the vocabulary too. Most of an import's database time is this parse. Vectors in id
   * order and words in word order, so concurrent batches never deadlock on them.
   */
  const writeSearch = (inputs: ReadonlyArray<ProductInput>) =>
    sql`
      WITH parsed AS MATERIALIZED (
        SELECT id, category_key, n, c, b,
               to_tsvector('simple', n) AS sn, to_tsvector('simple', c) AS sc, to_tsvector('simple', b) AS sb
        FROM (
          SELECT r.id, lower(r.category) AS category_key, productdir_unaccent(coalesce(r.name, '')) AS n,
                 productdir_unaccent(coalesce(r.category, '')) AS c, productdir_unaccent(coalesce(r.body, '')) AS b
          FROM jsonb_to_recordset(${pg.json(
            inputs.map((input) => ({
              id: canonicalProductId(input.id),
              name: input.content.name,
              category: input.content.category,
              body: searchFieldsOf(input.content).body
            }))
          )}) AS r(id uuid, name text, category text, body text)
        ) AS texts
      ), vectors AS (
        INSERT INTO product_search AS s (product_id, category_key, search)
        SELECT id, category_key,
               setweight(to_tsvector('english', n), 'A') || setweight(sn, 'A')
            || setweight(to_tsvector('english', c), 'B') || setweight(sc, 'B')
            || setweight(to_tsvector('english', b), 'C') || setweight(sb, 'C')
        FROM parsed
        ORDER BY id
        ON CONFLICT (product_id) DO UPDATE SET category_key = EXCLUDED.category_key, search = EXCLUDED.search
      )
      INSERT INTO search_words (word)
      SELECT DISTINCT w FROM parsed, unnest(tsvector_to_array(sn || sc || sb)) AS w
      ORDER BY w
      ON CONFLICT DO NOTHING`

  /**
   * One run of a batch, in its transaction. Only new products need the slug lock (their slugs must
   * not be taken by a transaction that has not committed yet), and the lock is held to commit; so
   * what costs — the search vectors, most of an import's database time — is written before it:
   * two import batches overlap on two connections. A new product's vector precedes its row (the
   * reference is checked at commit, migration 8).
   */
  /**
   * `by`: the publisher that makes the change (PATCH), null for an import; a change an import writes over a publisher's
   * says whose it was (`overwrote`).
   */
  const upsertRun = Effect.fn("CatalogStore.upsertRun")(function* (run: ReadonlyArray<ProductInput>, now: Date, by: string | null = null) {
    const ids = run.map((input) => canonicalProductId(input.id))
    const existing = yield* sql<{ id: string; slug: string; edited_by: string | null }>`
      SELECT id, slug, edited_by FROM products WHERE id = ANY(${ids}::uuid[])`
    const slugById = new Map(existing.map((row) => [row.id, row.slug as Slug]))
    const editedBy = new Map(existing.flatMap((row) => (row.edited_by === null ? [] : [[row.id, row.edited_by] as const])))
    const known = run.filter((input) => slugById.has(canonicalProductId(input.id)))
    const fresh = run.filter((input) => !slugById.has(canonicalProductId(input.id)))
    const status = new Map<string, "created" | "updated">()
    const record = (rows: ReadonlyArray<{ id: string; created: boolean }>) => {
      for (const row of rows) status.set(row.id, row.created ? "created" : "updated")
    }
    if (known.length > 0) {
      yield* keepReplaced(known, now)
      record(yield* writeProducts(productRows(known, slugById), now, by))
      const changed = known.filter((input) => status.has(canonicalProductId(input.id)))
      if (changed.length > 0) yield* writeSearch(changed)
    }
    if (fresh.length > 0) {
      yield* writeSearch(fresh)
      yield* sql`SELECT pg_advisory_xact_lock(${SLUG_LOCK})`
      const slugs = yield* assignSlugs(fresh)
      for (const [i, input] of fresh.entries()) slugById.set(canonicalProductId(input.id), slugs[i]!)
      // Another process may have created one of them since: its row is updated (or left) instead, its version kept.
      yield* keepReplaced(fresh, now)
      record(yield* writeProducts(productRows(fresh, slugById), now, by))
    }
    return run.map((input): UpsertOutcome => {
      const id = canonicalProductId(input.id)
      const overwrote = by === null && status.get(id) === "updated" ? editedBy.get(id) : undefined
      return { id, slug: slugById.get(id)!, status: status.get(id) ?? "unchanged", ...(overwrote === undefined ? {} : { overwrote }) }
    })
  })

  const upsert = Effect.fn("CatalogStore.upsert")(function* (inputs: ReadonlyArray<ProductInput>) {
    if (inputs.length === 0) return []
    const now = yield* stamp
    const outcomes = (yield* Effect.forEach(distinctRuns(inputs), (run) => upsertRun(run, now)).pipe(
      sql.withTransaction,
      storeError("upsert")
    )).flat()
    yield* announcer.announce(outcomes.filter((o) => o.status !== "unchanged").map((o) => ({ id: o.id })))
    return outcomes
  })

  const preview = Effect.fn("CatalogStore.preview")(function* (inputs: ReadonlyArray<ProductInput>) {
    if (inputs.length === 0) return []
    const rows = inputs.map((input) => ({
      id: canonicalProductId(input.id),
      content: input.content,
      seed_up: input.seed.up,
      seed_down: input.seed.down
    }))
    const existing = yield* sql<{ id: string; changed: boolean }>`
      SELECT p.id,
             (p.content IS DISTINCT FROM r.content OR p.seed_up <> r.seed_up OR p.seed_down <> r.seed_down
              OR p.removed_at IS NOT NULL) AS changed
      FROM jsonb_to_recordset(${pg.json(rows)}) AS r(id uuid, content jsonb, seed_up bigint, seed_down bigint)
      JOIN products p ON p.id = r.id`.pipe(storeError("preview"))
    const changed = new Map(existing.map((row) => [row.id, row.changed]))
    // Later inputs see earlier ones of the same batch, as upsert does.
    const seen = new Map<string, string>()
    return rows.map((row): UpsertStatus => {
      const key = JSON.stringify([row.content, row.seed_up, row.seed_down])
      const before = seen.get(row.id)
      seen.set(row.id, key)
      if (before !== undefined) return before === key ? "unchanged" : "updated"
      const known = changed.get(row.id)
      return known === undefined ? "created" : known ? "updated" : "unchanged"
    })
  })

  const list = Effect.fn("CatalogStore.list")(function* (query: ListQuery) {
    let after = undefined as ReturnType<typeof sortKeyOf> | undefined
    if (query.cursor !== undefined) {
      const key = decodeCursor(query.cursor, query.sort)
      if (Result.isFailure(key)) return yield* Effect.fail<InvalidCursor>(key.failure)
      after = key.success
    }
    const primary = sql
    const read = (sql: SqlClient.SqlClient) =>
      Effect.gen(function* () {
        const search = query.q === undefined ? undefined : yield* searchQuery(sql, query.q)
        // A page by relevance on a large catalog ranks a bounded set of candidates (searchLists.ts): the best
        // matches down to the page's depth, which its cursor carries. Past RELEVANCE_WINDOW there are no more pages.
        const depth = after?.sort === "relevance" ? (after.depth ?? 0) : 0
        const candidates =
          search !== undefined && query.sort === "relevance" && query.updatedSince === undefined
            ? yield* searchCandidates(sql, primary, search.sought, query.category, Math.min(depth + query.limit, RELEVANCE_WINDOW))
            : undefined
        windowed = candidates !== undefined
        const filters = [sql`removed_at IS NULL`]
        // Searched, the category is matched beside the vector (one table, one bitmap AND); listed, on the products.
        if (query.category !== undefined)
          filters.push(
            search === undefined
              ? sql`lower(category) = lower(${query.category})`
              : sql`product_search.category_key = lower(${query.category})`
          )
        if (query.updatedSince !== undefined) filters.push(sql`updated_at >= ${query.updatedSince}`)
        // Among candidates, the match is checked per row (ts_match_vq, the function behind @@, which no index serves):
        // the planner would otherwise read the words' posting lists for a bitmap AND.
        if (search !== undefined)
          filters.push(
            candidates === undefined
              ? sql`product_search.search @@ ${tsquery(sql, search)}`
              : sql`ts_match_vq(product_search.search, ${tsquery(sql, search)})`
          )
        if (candidates !== undefined) filters.push(sql`product_search.product_id = ANY(${candidates}::uuid[])`)
        // Relevance as the cursor carries it: rounded, so the next page compares equal values.
        const rank =
          search !== undefined && query.sort === "relevance" ? sql`round(${relevance(sql, search)}::numeric, 6)::float8` : sql`0::float8`
        // The search vectors live apart (migration 7): joined by primary key when words are searched.
        const from = search === undefined ? sql`products` : sql`products JOIN product_search ON product_search.product_id = products.id`
        const outer: Array<Statement.Fragment> = []
        let order: Statement.Fragment
        switch (query.sort) {
          case "relevance":
            order = sql`rank DESC, trust_score DESC, id`
            if (after?.sort === "relevance")
              outer.push(
                sql`(rank < ${after.rank} OR (rank = ${after.rank} AND (trust_score < ${after.score} OR (trust_score = ${after.score} AND id > ${after.id}))))`
              )
            break
          case "trust":
            order = sql`trust_score DESC, id`
            if (after?.sort === "trust")
              filters.push(sql`(trust_score < ${after.score} OR (trust_score = ${after.score} AND id > ${after.id}))`)
            break
          case "name":
            order = sql`name_key, id`
            if (after?.sort === "name") filters.push(sql`(name_key, id) > (${after.name}, ${after.id}::uuid)`)
            break
          case "updated":
            order = sql`updated_at DESC, id`
            if (after?.sort === "updated") {
              const at = new Date(after.at)
              filters.push(sql`(updated_at < ${at} OR (updated_at = ${at} AND id > ${after.id}))`)
            }
            break
        }
        return yield* sql<ProductRow & { rank: number }>`
      SELECT * FROM (
        SELECT ${sql.literal(LISTED_COLUMNS)}, trust_score, name_key, ${rank} AS rank FROM ${from}
        WHERE ${sql.and(filters)}
      ) AS matched
      WHERE ${outer.length > 0 ? sql.and(outer) : sql`true`}
      ORDER BY ${order}
      LIMIT ${query.limit + 1}`
      })
    /** Whether the page was ranked among the best matches only (a large catalog): its depth is bounded. */
    let windowed = false
    const rows = yield* router.many(read).pipe(storeError("list"))
    const items = rows.slice(0, query.limit).map((row): Ranked => ({ product: toListedProduct(row), rank: Number(row.rank) }))
    const last = items.at(-1)
    const depth = (after?.sort === "relevance" ? (after.depth ?? 0) : 0) + items.length
    const more = rows.length > query.limit && last !== undefined && !(windowed && depth >= RELEVANCE_WINDOW)
    if (!more || last === undefined) return { items: items.map((ranked) => ranked.product), nextCursor: null }
    const key = sortKeyOf(query.sort, last)
    return {
      items: items.map((ranked) => ranked.product),
      nextCursor: encodeCursor(key.sort === "relevance" ? { ...key, depth } : key)
    }
  })

  const slugsStartingWith = (prefix: string, limit: number) =>
    Effect.map(
      router.many(
        (db) => db<{ slug: Slug }>`
          SELECT slug FROM products
          WHERE removed_at IS NULL AND slug >= ${prefix.toLowerCase()} AND slug < ${prefix.toLowerCase()} || chr(1114111)
          ORDER BY slug LIMIT ${limit}`
      ),
      (rows) => rows.map((r) => r.slug)
    ).pipe(storeError("slugsStartingWith"))

  // On the primary: an import asks, and writes there next.
  const namedBySlugs = (slugs: ReadonlyArray<string>) =>
    slugs.length === 0
      ? Effect.succeed([])
      : sql<NamedProduct>`
          SELECT id, slug, name FROM products WHERE removed_at IS NULL AND slug = ANY(${[...new Set(slugs)]}::text[])`.pipe(
          storeError("namedBySlugs")
        )

  // What a search answer reads of its candidates, by the domain's rule (ProductDescription.ts), each field bounded in the
  // database (routines/sql/describe.sql): a megabyte record sends no more than any other.
  const describe = (ids: ReadonlyArray<ProductId>) =>
    ids.length === 0
      ? Effect.succeed([])
      : router
          .many((db) => db<ProductDescription>`SELECT * FROM productdir_describe(${ids.map(canonicalProductId)}::uuid[])`)
          .pipe(storeError("describe"), Effect.withSpan("CatalogStore.describe"))

  const categories = router
    .many(
      (db) => db<{ category: string; count: number }>`
        SELECT category, count(*)::int AS count FROM products WHERE removed_at IS NULL
        GROUP BY category ORDER BY category COLLATE "C"`
    )
    .pipe(storeError("categories"), Effect.withSpan("CatalogStore.categories"))

  const takeDown = Effect.fn("CatalogStore.takeDown")(function* (id: ProductId, reason: string) {
    const key = canonicalProductId(id)
    const rows = yield* sql<{ live: boolean }>`
      WITH target AS (SELECT id, removed_at IS NULL AS live FROM products WHERE id = ${key} FOR UPDATE),
      taken AS (
        UPDATE products p SET removed_at = ${yield* stamp}, removed_reason = ${reason}
        FROM target WHERE p.id = target.id AND target.live RETURNING p.id)
      SELECT live FROM target`.pipe(storeError("takeDown"))
    if (rows[0] === undefined) return yield* new ProductNotFound({ ref: id })
    if (rows[0].live) yield* announcer.announce([{ id: key }])
    return rows[0].live
  })

  const bringBack = Effect.fn("CatalogStore.bringBack")(function* (id: ProductId) {
    const key = canonicalProductId(id)
    const rows = yield* sql<{ removed: boolean }>`
      WITH target AS (SELECT id, removed_at IS NOT NULL AS removed FROM products WHERE id = ${key} FOR UPDATE),
      brought AS (
        UPDATE products p SET removed_at = NULL, removed_reason = NULL
        FROM target WHERE p.id = target.id AND target.removed RETURNING p.id)
      SELECT removed FROM target`.pipe(storeError("bringBack"))
    if (rows[0] === undefined) return yield* new ProductNotFound({ ref: id })
    if (rows[0].removed) yield* announcer.announce([{ id: key }])
    return rows[0].removed
  })

  const remove = Effect.fn("CatalogStore.remove")(function* (ids: ReadonlyArray<ProductId>) {
    if (ids.length === 0) return 0
    const rows = yield* sql<{ id: string }>`
      UPDATE products SET removed_at = ${yield* stamp}
      WHERE id = ANY(${ids.map(canonicalProductId)}::uuid[]) AND removed_at IS NULL
      RETURNING id`.pipe(storeError("remove"))
    yield* announcer.announce(rows)
    return rows.length
  })

  /**
   * Pages of at most `batchSize` products and SCAN_BYTES of them, whichever comes first: a page of a thousand
   * records of a megabyte each would be a gigabyte in this process. A page's records are sized in the database first
   * (as JSON text), over as many as the last page suggests will fit, so that a catalog of large records is not
   * rendered a thousand at a time to find the few that fit.
   */
  const scan = (batchSize: number): Stream.Stream<Product, StoreError> =>
    Stream.paginate({ after: "00000000-0000-0000-0000-000000000000", probe: batchSize }, ({ after, probe }) =>
      sql<ProductRow & { probed: number }>`
        WITH page AS (
          SELECT id, octet_length(content::text) AS size FROM products
          WHERE removed_at IS NULL AND id > ${after}::uuid ORDER BY id LIMIT ${probe}
        ), sized AS (
          SELECT id, coalesce(sum(size) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before FROM page
        )
        SELECT ${sql.literal(PRODUCT_COLUMNS)}, (SELECT count(*)::int FROM page) AS probed FROM products
        WHERE id IN (SELECT id FROM sized WHERE before < ${SCAN_BYTES}) ORDER BY id`.pipe(
        storeError("scan"),
        Effect.map((rows) => {
          const last = rows.at(-1)
          const probed = rows[0]?.probed ?? 0
          const cut = rows.length < probed
          const more = last !== undefined && (cut || probed === probe)
          // Cut by its bytes: the next probe sizes about twice what fitted; else it grows back toward batchSize.
          const next = { after: last?.id ?? after, probe: cut ? Math.max(1, 2 * rows.length) : Math.min(batchSize, 2 * probe) }
          return [rows.map(toProduct), more ? Option.some(next) : Option.none()] as const
        })
      )
    )

  const absentFrom = (isKept: (id: ProductId) => boolean) =>
    Stream.paginate("00000000-0000-0000-0000-000000000000", (after: string) =>
      sql<{ id: string }>`
        SELECT id FROM products WHERE removed_at IS NULL AND id > ${after}::uuid ORDER BY id LIMIT 10000`.pipe(
        storeError("absentFrom"),
        Effect.map((rows) => {
          const last = rows.at(-1)
          return [
            rows.map((row) => row.id as ProductId).filter((id) => !isKept(id)),
            rows.length === 10000 && last ? Option.some(last.id) : Option.none()
          ] as const
        })
      )
    )

  const edit = Effect.fn("CatalogStore.edit")(function* (input: ProductInput, expected: number, by: string) {
    const id = canonicalProductId(input.id)
    const now = yield* stamp
    const outcome = yield* Effect.gen(function* () {
      // Locked as read: a concurrent change waits, then finds the version this one made.
      const rows = yield* sql<{
        version: number
        removed_at: Date | null
      }>`SELECT version, removed_at FROM products WHERE id = ${id} FOR UPDATE`
      const row = rows[0]
      if (row === undefined) return yield* new ProductNotFound({ ref: id })
      if (row.removed_at !== null) return yield* new ProductRemoved({ id, removedAt: row.removed_at.toISOString() })
      if (row.version !== expected) return yield* new VersionConflict({ id, expected, current: row.version })
      return yield* upsertRun([{ ...input, id }], now, by)
    }).pipe(sql.withTransaction, storeError("edit"))
    yield* announcer.announce(outcome.filter((o) => o.status !== "unchanged").map((o) => ({ id: o.id })))
    return yield* find(id)
  })

  const versions = Effect.fn("CatalogStore.versions")(function* (
    ref: string,
    page: { readonly before: number | undefined; readonly limit: number }
  ) {
    const product = yield* find(ref)
    const current: ReadonlyArray<VersionEntry> =
      page.before === undefined || page.before > product.version
        ? [{ version: product.version, updatedAt: product.updatedAt, supersededAt: null }]
        : []
    const older = yield* sql<{ version: number; updated_at: Date; superseded_at: Date }>`
      SELECT version, updated_at, superseded_at FROM product_versions
      WHERE product_id = ${product.id} AND version < ${Math.min(page.before ?? product.version, product.version)}
      ORDER BY version DESC LIMIT ${page.limit}`.pipe(storeError("versions"))
    const entries = [
      ...current,
      ...older.map((row): VersionEntry => ({ version: row.version, updatedAt: row.updated_at, supersededAt: row.superseded_at }))
    ]
    return { product, versions: entries.slice(0, page.limit) }
  })

  const version = Effect.fn("CatalogStore.version")(function* (ref: string, n: number) {
    const product = yield* find(ref)
    if (n === product.version) {
      return { product, version: { version: n, content: product.content, updatedAt: product.updatedAt, supersededAt: null } }
    }
    const rows = yield* sql<{ content: unknown; updated_at: Date; superseded_at: Date }>`
      SELECT content, updated_at, superseded_at FROM product_versions
      WHERE product_id = ${product.id} AND version = ${n}`.pipe(storeError("version"))
    const row = rows[0]
    if (row === undefined) return yield* new VersionNotFound({ id: product.id, version: n, current: product.version })
    return { product, version: { version: n, content: contentOf(row.content), updatedAt: row.updated_at, supersededAt: row.superseded_at } }
  })

  return CatalogStore.of({
    find,
    versions,
    version,
    edit,
    takeDown,
    bringBack,
    upsert,
    preview,
    list,
    describe,
    slugsStartingWith,
    namedBySlugs,
    categories,
    remove,
    absentFrom,
    scan,
    // Whether the catalog's table is there, not `SELECT 1`: a database that answers but no longer holds the schema
    // (dropped and made again empty, restored to the wrong one) serves nothing, and is not ready. `to_regclass`
    // takes no lock: a readiness probe never waits behind a migration or a VACUUM FULL of the table.
    ping: sql<{ present: boolean }>`SELECT to_regclass('products') IS NOT NULL AS present`.pipe(
      storeError("ping"),
      Effect.flatMap((rows) =>
        rows[0]?.present === true
          ? Effect.void
          : Effect.fail(new StoreError({ operation: "ping", detail: "the database holds no products table: no productdir catalog" }))
      )
    )
  })
})

export const layer = Layer.effect(CatalogStore, make)

/**
 * The SQL schema, in code. Part of the operators' interface (docs/database.md):
 * change it only by adding a migration. Each runs once, in a transaction,
 * under the migrator's lock, so concurrent starts are safe.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrator from "effect/sql/Migrator"
import { SEARCH_TEXT_LIMIT, WILSON_Z } from "@productdir/domain"

export const MIGRATIONS_TABLE = "productdir_migrations"

/**
 * The domain's trust score (packages/domain/src/trust.ts), operation for
 * operation in float8, so `sort=trust` orders exactly as the API reports.
 */
const trustScoreFunction = (sql: SqlClient.SqlClient) =>
  sql.unsafe(`
    CREATE OR REPLACE FUNCTION productdir_trust_score(up bigint, down bigint) RETURNS smallint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
      SELECT CASE WHEN up + down = 0 THEN 0::smallint ELSE
        floor(100 * greatest(0::float8, least(1::float8,
          (up::float8 + (${WILSON_Z}::float8 * ${WILSON_Z}::float8) / 2
            - ${WILSON_Z}::float8 * sqrt((up::float8 * down::float8) / (up + down)::float8 + (${WILSON_Z}::float8 * ${WILSON_Z}::float8) / 4))
          / ((up + down)::float8 + ${WILSON_Z}::float8 * ${WILSON_Z}::float8))) + 0.5)::smallint
      END
    $fn$`)

export const migrations = Migrator.fromRecord({
  "0001_products_and_votes": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* trustScoreFunction(sql)
    yield* sql`
      CREATE TABLE products (
        id          uuid PRIMARY KEY,
        slug        text COLLATE "C" NOT NULL UNIQUE,
        name        text NOT NULL,
        name_key    text COLLATE "C" NOT NULL,
        category    text NOT NULL,
        content     jsonb NOT NULL,
        search      tsvector NOT NULL,
        seed_up     bigint NOT NULL DEFAULT 0 CHECK (seed_up >= 0),
        seed_down   bigint NOT NULL DEFAULT 0 CHECK (seed_down >= 0),
        trust_up    bigint NOT NULL DEFAULT 0 CHECK (trust_up >= 0),
        trust_down  bigint NOT NULL DEFAULT 0 CHECK (trust_down >= 0),
        trust_score smallint GENERATED ALWAYS AS (productdir_trust_score(trust_up, trust_down)) STORED,
        version     integer NOT NULL DEFAULT 1,
        created_at  timestamptz NOT NULL DEFAULT now(),
        -- milliseconds, like the timestamps clients see and the cursors they send back
        updated_at  timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        removed_at  timestamptz
      )`
    yield* sql`CREATE INDEX products_by_trust ON products (trust_score DESC, id) WHERE removed_at IS NULL`
    yield* sql`CREATE INDEX products_by_name ON products (name_key, id) WHERE removed_at IS NULL`
    yield* sql`CREATE INDEX products_by_updated ON products (updated_at DESC, id) WHERE removed_at IS NULL`
    yield* sql`CREATE INDEX products_by_category ON products (category) WHERE removed_at IS NULL`
    yield* sql`CREATE INDEX products_search ON products USING gin (search)`
    yield* sql`
      CREATE TABLE votes (
        product_id  uuid NOT NULL REFERENCES products (id),
        voter       text NOT NULL,
        direction   text NOT NULL CHECK (direction IN ('up', 'down')),
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (product_id, voter)
      )`
    yield* sql`
      CREATE TABLE problem_reports (
        product_id   uuid NOT NULL REFERENCES products (id),
        problem_key  text NOT NULL,
        voter        text NOT NULL,
        summary      text NOT NULL,
        reported_at  timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (product_id, problem_key, voter)
      )`
    yield* sql`CREATE INDEX problem_reports_by_voter ON problem_reports (product_id, voter)`
    yield* sql`
      CREATE TABLE settings (
        key    text PRIMARY KEY,
        value  text NOT NULL
      )`
  }),
  "0002_agents_and_shared_limits": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE agents (
        id            uuid PRIMARY KEY,
        kind          text NOT NULL CHECK (kind IN ('registered', 'signed')),
        name          text NOT NULL,
        contact       text,
        -- registered agents: sha-256 of the API key (the key itself is never stored), and its first characters
        key_hash      text UNIQUE,
        key_hint      text,
        -- signed agents: the origin of the key directory and the key's RFC 7638 thumbprint
        key_directory text,
        key_id        text,
        -- keyed hash of the client network it registered (or first voted) from: bulk registrations cluster
        registered_from text,
        created_at    timestamptz NOT NULL,
        revoked_at    timestamptz,
        UNIQUE (key_directory, key_id),
        CHECK ((kind = 'registered') = (key_hash IS NOT NULL)),
        CHECK ((kind = 'signed') = (key_directory IS NOT NULL AND key_id IS NOT NULL))
      )`
    yield* sql`CREATE INDEX agents_by_created ON agents (created_at, id)`
    // Marks: the votes and reports of a revoked agent stay, with the revocation's time.
    yield* sql`ALTER TABLE votes ADD COLUMN revoked_at timestamptz`
    yield* sql`ALTER TABLE problem_reports ADD COLUMN revoked_at timestamptz`
    // Revocation finds an agent's votes by voter; address votes never need it, so they pay nothing.
    yield* sql`CREATE INDEX votes_by_agent ON votes (voter) WHERE voter LIKE 'agent:%'`
    // The rule of trust (packages/domain/src/VoteLedger.ts), once: every count of the ledger reads this view.
    yield* sql`CREATE VIEW counted_votes AS SELECT product_id, voter, direction, created_at, updated_at FROM votes WHERE revoked_at IS NULL`
    // Unlogged: buckets are worth nothing after a crash (empty ones are full ones), so taking a token
    // writes no WAL and waits for no flush. Every vote takes its tokens: this keeps the limit cheap.
    yield* sql`
      CREATE UNLOGGED TABLE rate_buckets (
        key         text PRIMARY KEY,
        tokens      float8 NOT NULL,
        max_tokens  float8 NOT NULL,
        window_ms   float8 NOT NULL,
        at          timestamptz NOT NULL
      )`
    yield* takeTokensFunction(sql)
  }),
  "0003_change_feed": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // The transaction that last changed a product (ChangeFeed.ts reads products changed since a point).
    // A constant default: adding the column rewrites nothing.
    yield* sql`ALTER TABLE products ADD COLUMN changed_xid xid8 NOT NULL DEFAULT '0'`
    yield* sql`CREATE INDEX products_by_change ON products (changed_xid)`
    // Every write of a product row stamps it, whoever writes it: votes, imports, prunes, repairs,
    // revocations, and an operator's hand edit alike.
    yield* sql.unsafe(`
      CREATE FUNCTION productdir_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        NEW.changed_xid := pg_current_xact_id();
        RETURN NEW;
      END
      $fn$`)
    yield* sql`CREATE TRIGGER products_stamp_change BEFORE INSERT OR UPDATE ON products FOR EACH ROW EXECUTE FUNCTION productdir_stamp_change()`
    // A product's problems are part of its reads: a report that comes, goes or is marked changes the product.
    yield* sql.unsafe(`
      CREATE FUNCTION productdir_report_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE products SET changed_xid = pg_current_xact_id()
        WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
        RETURN NULL;
      END
      $fn$`)
    yield* sql`CREATE TRIGGER problem_reports_changed AFTER INSERT OR UPDATE OR DELETE ON problem_reports FOR EACH ROW EXECUTE FUNCTION productdir_report_changed()`
  }),
  "0004_cast_vote": Effect.gen(function* () {
    yield* castVoteFunction(yield* SqlClient.SqlClient)
  }),
  // Search that finds what agents mean (packages/domain/src/search.ts, ./search.ts): English stems and
  // plain words, accents folded, weighted by field; a vocabulary of the catalog's words for typos.
  "0005_search": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE EXTENSION IF NOT EXISTS unaccent`
    yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
    // unaccent() is STABLE (it reads its dictionary by name): an index needs an IMMUTABLE wrapper naming it.
    yield* sql.unsafe(`
      CREATE FUNCTION productdir_unaccent(text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $fn$
        SELECT public.unaccent('public.unaccent'::regdictionary, $1)
      $fn$`)
    yield* sql.unsafe(`
      CREATE FUNCTION productdir_search_vector(p_name text, p_category text, p_body text) RETURNS tsvector
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT setweight(to_tsvector('english', productdir_unaccent(coalesce(p_name, ''))), 'A')
            || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_name, ''))), 'A')
            || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_category, ''))), 'B')
            || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_category, ''))), 'B')
            || setweight(to_tsvector('english', productdir_unaccent(coalesce(p_body, ''))), 'C')
            || setweight(to_tsvector('simple', productdir_unaccent(coalesce(p_body, ''))), 'C')
      $fn$`)
    yield* sql.unsafe(`
      CREATE FUNCTION productdir_search_body(content jsonb) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT left(concat_ws(' ', content->>'ai_summary',
          (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'key_features') x),
          (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_features') x),
          (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'recommended_for') x),
          (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(content->'ai_optimization'->'use_cases') x)
        ), ${SEARCH_TEXT_LIMIT})
      $fn$`)
    yield* sql`UPDATE products SET search = productdir_search_vector(name, category, productdir_search_body(content))`
    // Every plain word the catalog has held: what a typo is corrected to (nearest by trigrams, GiST).
    yield* sql`CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY)`
    yield* sql`CREATE INDEX search_words_trigrams ON search_words USING gist (word gist_trgm_ops)`
    yield* sql`
      INSERT INTO search_words (word)
      SELECT DISTINCT w FROM products, unnest(tsvector_to_array(to_tsvector('simple',
        productdir_unaccent(concat_ws(' ', name, category, productdir_search_body(content)))))) AS w
      ON CONFLICT DO NOTHING`
    yield* sql`DROP INDEX products_by_category`
    yield* sql`CREATE INDEX products_by_category ON products (lower(category)) WHERE removed_at IS NULL`
  }),
  // The vote and its rate limits in one statement (one round trip instead of two).
  "0006_cast_vote_within": Effect.gen(function* () {
    yield* castVoteWithinFunction(yield* SqlClient.SqlClient)
  }),
  // A product's search vector in a table of its own. Every vote rewrites its product's row, and the
  // trust index makes that a non-HOT update, which adds the row to every index of the table again: in
  // products, the GIN index took the vector's hundreds of lexemes on every vote (the products of a
  // benchmark catalog: 0 HOT updates in 826,000, a 118 MB GIN index for 20,000 products). Apart, the
  // vector and its index change only when the product's text does. The category comes along, so a
  // search within a category is still one bitmap AND of two indexes of one table (without it, 1M
  // products: 2.2 s, the category's 100,000 rows probed one by one; with it, 56 ms).
  "0007_search_apart": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE product_search (
        product_id   uuid PRIMARY KEY REFERENCES products (id) ON DELETE CASCADE,
        category_key text NOT NULL,
        search       tsvector NOT NULL
      )`
    yield* sql`INSERT INTO product_search (product_id, category_key, search) SELECT id, lower(category), search FROM products`
    yield* sql`CREATE INDEX product_search_vector ON product_search USING gin (search)`
    yield* sql`CREATE INDEX product_search_by_category ON product_search (category_key)`
    yield* sql`ALTER TABLE products DROP COLUMN search`
  }),
  // A new product's search vector is written before its row (SqlCatalogStore.upsertRun), so that the
  // costly part of an import batch runs before the slug lock and two batches overlap; the reference
  // to the product is checked when the transaction commits.
  "0008_search_before_product": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`ALTER TABLE product_search ALTER CONSTRAINT product_search_product_id_fkey DEFERRABLE INITIALLY DEFERRED`
  }),
  // The nonces of signed requests (Nonces), until their signature expires: every process sees every
  // claim, so a request replayed to another process is refused too. The key is a digest, so a row has
  // one size whatever the client sent.
  "0009_signature_nonces": Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`
      CREATE TABLE signature_nonces (
        key        bytea PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`
    yield* sql`CREATE INDEX signature_nonces_by_expiry ON signature_nonces (expires_at)`
  })
})

/**
 * Token buckets (packages/domain/src/RateLimits.ts) shared by every process on the
 * database: refills each bucket of `keys` (creating it full), locking them in key
 * order so concurrent takers never deadlock, and takes one token from each only
 * if every one holds a token. Returns each bucket's tokens before the take; the
 * caller decides from them with the domain's `decide`, the same arithmetic the
 * in-process buckets use. One call, one round trip, one transaction.
 */
const takeTokensFunction = (sql: SqlClient.SqlClient) =>
  sql.unsafe(`
    CREATE OR REPLACE FUNCTION productdir_take_tokens(
      p_keys text[], p_max float8[], p_window_ms float8[], p_now timestamptz
    ) RETURNS TABLE (key text, tokens float8)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      all_hold boolean;
    BEGIN
      INSERT INTO rate_buckets AS b (key, tokens, max_tokens, window_ms, at)
        SELECT w.k, w.mx, w.mx, w.win, p_now FROM unnest(p_keys, p_max, p_window_ms) AS w(k, mx, win) ORDER BY w.k
        ON CONFLICT ON CONSTRAINT rate_buckets_pkey DO UPDATE SET
          tokens = least(EXCLUDED.max_tokens,
            b.tokens + greatest(0, extract(epoch FROM EXCLUDED.at - b.at)::float8 * 1000) * EXCLUDED.max_tokens / EXCLUDED.window_ms),
          max_tokens = EXCLUDED.max_tokens,
          window_ms = EXCLUDED.window_ms,
          at = greatest(b.at, EXCLUDED.at);
      SELECT bool_and(b.tokens >= 1) INTO all_hold FROM rate_buckets b WHERE b.key = ANY(p_keys);
      RETURN QUERY SELECT b.key, b.tokens FROM rate_buckets b WHERE b.key = ANY(p_keys);
      IF all_hold THEN
        UPDATE rate_buckets b SET tokens = b.tokens - 1 WHERE b.key = ANY(p_keys);
      END IF;
    END
    $fn$`)

/**
 * One vote, in one call (one round trip, one transaction; pipelined with other
 * statements on a shared connection): the voting agent's standing (share lock),
 * the product (update lock, in that order, the order a revocation takes them),
 * the voter's previous vote (read after the lock, in a statement of its own, so
 * it sees every vote committed by whoever held the lock before), the ballot,
 * the counters, the problem report. How the counters move is the domain's
 * (packages/domain/src/Vote.ts, voteTransition): the caller passes the move for
 * a first vote and for a changed one, and the function picks.
 */
const castVoteFunction = (sql: SqlClient.SqlClient) =>
  sql.unsafe(`
    CREATE OR REPLACE FUNCTION productdir_cast_vote(
      p_id uuid, p_slug text, p_voter text, p_agent uuid, p_direction text, p_now timestamptz,
      p_first_up int, p_first_down int, p_moved_up int, p_moved_down int,
      p_reason_key text, p_reason_summary text
    ) RETURNS TABLE (outcome text, product_id uuid, removed_at timestamptz, previous text, trust_up bigint, trust_down bigint, xid text)
    LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_revoked timestamptz;
      v_id uuid;
      v_removed timestamptz;
      v_up bigint;
      v_down bigint;
      v_previous text;
      v_xid text;
    BEGIN
      IF p_agent IS NOT NULL THEN
        SELECT a.revoked_at INTO v_revoked FROM agents a WHERE a.id = p_agent FOR SHARE;
        IF NOT FOUND OR v_revoked IS NOT NULL THEN
          RETURN QUERY SELECT 'agent_revoked'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
          RETURN;
        END IF;
      END IF;
      IF p_id IS NOT NULL THEN
        SELECT p.id, p.removed_at, p.trust_up, p.trust_down INTO v_id, v_removed, v_up, v_down FROM products p WHERE p.id = p_id FOR UPDATE;
      ELSE
        SELECT p.id, p.removed_at, p.trust_up, p.trust_down INTO v_id, v_removed, v_up, v_down FROM products p WHERE p.slug = p_slug FOR UPDATE;
      END IF;
      IF v_id IS NULL THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
        RETURN;
      END IF;
      IF v_removed IS NOT NULL THEN
        RETURN QUERY SELECT 'removed'::text, v_id, v_removed, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
        RETURN;
      END IF;
      SELECT v.direction INTO v_previous FROM votes v WHERE v.product_id = v_id AND v.voter = p_voter;
      IF v_previous IS DISTINCT FROM p_direction THEN
        INSERT INTO votes AS v (product_id, voter, direction, created_at, updated_at)
          VALUES (v_id, p_voter, p_direction, p_now, p_now)
          ON CONFLICT (product_id, voter) DO UPDATE SET direction = EXCLUDED.direction, updated_at = EXCLUDED.updated_at;
        UPDATE products p SET
          trust_up = p.trust_up + CASE WHEN v_previous IS NULL THEN p_first_up ELSE p_moved_up END,
          trust_down = p.trust_down + CASE WHEN v_previous IS NULL THEN p_first_down ELSE p_moved_down END
          WHERE p.id = v_id
          RETURNING p.trust_up, p.trust_down, p.changed_xid::text INTO v_up, v_down, v_xid;
      END IF;
      IF p_direction = 'up' AND v_previous = 'down' THEN
        -- Moving to up withdraws what this voter reported against the product.
        DELETE FROM problem_reports r WHERE r.product_id = v_id AND r.voter = p_voter;
      ELSIF p_direction = 'down' AND p_reason_key IS NOT NULL THEN
        INSERT INTO problem_reports (product_id, problem_key, voter, summary, reported_at)
          VALUES (v_id, p_reason_key, p_voter, p_reason_summary, p_now)
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN QUERY SELECT 'cast'::text, v_id, NULL::timestamptz, v_previous, v_up, v_down, v_xid;
    END
    $fn$`)

/**
 * A vote within rate limits, in one call: the buckets' tokens are taken
 * (productdir_take_tokens), and only if every bucket had one is the vote cast
 * (productdir_cast_vote), in the same transaction. Answers the buckets' tokens
 * before the take, for the domain's decision, beside the cast's row ('limited'
 * when a bucket was empty). Buckets are locked first, in key order, then the
 * agent and the product, as every vote does: no two votes wait on each other
 * in a cycle.
 */
const castVoteWithinFunction = (sql: SqlClient.SqlClient) =>
  sql.unsafe(`
    CREATE OR REPLACE FUNCTION productdir_cast_vote_within(
      p_keys text[], p_max float8[], p_window_ms float8[],
      p_id uuid, p_slug text, p_voter text, p_agent uuid, p_direction text, p_now timestamptz,
      p_first_up int, p_first_down int, p_moved_up int, p_moved_down int,
      p_reason_key text, p_reason_summary text
    ) RETURNS TABLE (
      limit_keys text[], limit_tokens float8[],
      outcome text, product_id uuid, removed_at timestamptz, previous text, trust_up bigint, trust_down bigint, xid text
    )
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_keys text[];
      v_tokens float8[];
    BEGIN
      SELECT coalesce(array_agg(t.key), '{}'), coalesce(array_agg(t.tokens), '{}') INTO v_keys, v_tokens
        FROM productdir_take_tokens(p_keys, p_max, p_window_ms, p_now) t;
      IF EXISTS (SELECT 1 FROM unnest(v_tokens) AS left_over WHERE left_over < 1) THEN
        RETURN QUERY SELECT v_keys, v_tokens, 'limited'::text, NULL::uuid, NULL::timestamptz, NULL::text, NULL::bigint, NULL::bigint, NULL::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT v_keys, v_tokens, c.outcome, c.product_id, c.removed_at, c.previous, c.trust_up, c.trust_down, c.xid
        FROM productdir_cast_vote(p_id, p_slug, p_voter, p_agent, p_direction, p_now,
          p_first_up, p_first_down, p_moved_up, p_moved_down, p_reason_key, p_reason_summary) AS c;
    END
    $fn$`)

/** Runs pending migrations; returns what ran (empty when the schema is current). */
export const migrate = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })

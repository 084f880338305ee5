/**
 * AgentRegistry on PostgreSQL. A revoke or restore is one transaction: the
 * agent's row (locked for update, so a vote racing it waits: SqlVoteLedger.ts),
 * the marks on its votes and reports, and the recount of its products.
 */
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import {
  type Agent,
  type AgentId,
  type AgentKind,
  agentLedgerKey,
  AgentNotFound,
  type AgentRecord,
  AgentRegistry,
  type StandingChange
} from "@productdir/domain"
import { Announcer } from "./ChangeFeed.ts"
import { retryDeadlocks } from "./deadlocks.ts"
import { storeError } from "./errors.ts"
import { recount } from "./recount.ts"
import { stamp } from "./writeTime.ts"

interface AgentRow {
  readonly id: string
  readonly kind: AgentKind
  readonly name: string
  readonly contact: string | null
  readonly key_hint: string | null
  readonly key_directory: string | null
  readonly key_id: string | null
  readonly registered_from: string | null
  readonly created_at: Date
  readonly revoked_at: Date | null
  readonly standing_since: Date | null
}

const COLUMNS = "id, kind, name, contact, key_hint, key_directory, key_id, registered_from, created_at, revoked_at, standing_since"

const toAgent = (row: AgentRow): Agent => ({
  id: row.id as AgentId,
  kind: row.kind,
  name: row.name,
  contact: row.contact,
  keyHint: row.key_hint,
  keyDirectory: row.key_directory,
  keyId: row.key_id,
  registeredFrom: row.registered_from,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
  standingSince: row.standing_since
})

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const announcer = yield* Announcer
  const columns = sql.literal(COLUMNS)

  const withCounts = (agents: ReadonlyArray<Agent>) =>
    Effect.gen(function* () {
      if (agents.length === 0) return []
      const keys = agents.map((a) => agentLedgerKey(a.id))
      const counts = yield* sql<{ voter: string; votes: number }>`
        SELECT voter, count(*)::int AS votes FROM votes WHERE voter = ANY(${keys}::text[]) AND voter LIKE 'agent:%' GROUP BY voter`
      const byVoter = new Map(counts.map((c) => [c.voter, c.votes]))
      // One vote per product and voter: the products voted on are the votes.
      return agents.map((agent): AgentRecord => {
        const votes = byVoter.get(agentLedgerKey(agent.id)) ?? 0
        return { ...agent, votes, products: votes }
      })
    })

  const setStanding = (operation: "revoke" | "restore") => (id: AgentId) =>
    Effect.gen(function* () {
      const now = yield* stamp
      return yield* Effect.gen(function* () {
        const [row] = yield* sql<AgentRow>`SELECT ${columns} FROM agents WHERE id = ${id} FOR UPDATE`
        if (row === undefined) return yield* new AgentNotFound({ id })
        const revoking = operation === "revoke"
        if ((row.revoked_at !== null) === revoking) {
          return { change: { agent: toAgent(row), changed: false, votes: 0, recounted: [] } satisfies StandingChange, touched: [] }
        }
        const at = revoking ? now : null
        const [updated] = yield* sql<AgentRow>`UPDATE agents SET revoked_at = ${at} WHERE id = ${id} RETURNING ${columns}`
        const voter = agentLedgerKey(id)
        const marked = revoking
          ? yield* sql<{ product_id: string }>`
              UPDATE votes SET revoked_at = ${now} WHERE voter = ${voter} AND revoked_at IS NULL RETURNING product_id`
          : yield* sql<{ product_id: string }>`
              UPDATE votes SET revoked_at = NULL WHERE voter = ${voter} AND revoked_at IS NOT NULL RETURNING product_id`
        yield* revoking
          ? sql`UPDATE problem_reports SET revoked_at = ${now} WHERE voter = ${voter} AND revoked_at IS NULL`
          : sql`UPDATE problem_reports SET revoked_at = NULL WHERE voter = ${voter} AND revoked_at IS NOT NULL`
        const touched = [...new Set(marked.map((m) => m.product_id))].sort()
        const recounted = yield* recount(sql, touched)
        return { change: { agent: toAgent(updated!), changed: true, votes: marked.length, recounted } satisfies StandingChange, touched }
      }).pipe(
        sql.withTransaction,
        retryDeadlocks,
        storeError(operation),
        // Every product it voted on: its counters and its problems (the agent's reports) may read differently now.
        Effect.tap(({ touched }) => announcer.announce(touched.map((id) => ({ id })))),
        Effect.map(({ change }) => change)
      )
    })

  return AgentRegistry.of({
    register: Effect.fn("AgentRegistry.register")(function* (agent) {
      const now = yield* stamp
      const [row] = yield* sql<AgentRow>`
        INSERT INTO agents (id, kind, name, contact, key_hash, key_hint, registered_from, created_at)
        VALUES (${agent.id}, 'registered', ${agent.name}, ${agent.contact}, ${agent.keyHash}, ${agent.keyHint}, ${agent.registeredFrom}, ${now})
        RETURNING ${columns}`.pipe(storeError("register agent"))
      return toAgent(row!)
    }),
    byKeyHash: (keyHash) =>
      sql<AgentRow>`SELECT ${columns} FROM agents WHERE key_hash = ${keyHash}`.pipe(
        storeError("authenticate"),
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toAgent))
      ),
    findSigned: (identity) =>
      sql<AgentRow>`
        SELECT ${columns} FROM agents WHERE key_id = ${identity.keyId}
        ORDER BY revoked_at IS NULL, key_directory IS DISTINCT FROM ${identity.keyDirectory}, created_at, id LIMIT 1`.pipe(
        storeError("find signed agent"),
        Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toAgent))
      ),
    enrolSigned: Effect.fn("AgentRegistry.enrolSigned")(function* (identity) {
      const now = yield* stamp
      // Enrol, or find the agent a concurrent first vote enrolled: the unique key decides.
      const [row] = yield* sql<AgentRow>`
        WITH enrolled AS (
          INSERT INTO agents (id, kind, name, key_directory, key_id, registered_from, created_at)
          VALUES (${identity.id}, 'signed', ${identity.keyDirectory}, ${identity.keyDirectory}, ${identity.keyId}, ${identity.registeredFrom}, ${now})
          ON CONFLICT (key_directory, key_id) DO NOTHING
          RETURNING ${columns}
        )
        SELECT ${columns} FROM enrolled
        UNION ALL
        SELECT ${columns} FROM agents WHERE key_directory = ${identity.keyDirectory} AND key_id = ${identity.keyId}`.pipe(
        storeError("enrol signed agent")
      )
      if (row !== undefined) return toAgent(row)
      // The conflicting insert committed after this statement's snapshot: read it now.
      const [again] = yield* sql<AgentRow>`
        SELECT ${columns} FROM agents WHERE key_directory = ${identity.keyDirectory} AND key_id = ${identity.keyId}`.pipe(
        storeError("enrol signed agent")
      )
      return toAgent(again!)
    }),
    find: (id) =>
      Effect.gen(function* () {
        const [row] = yield* sql<AgentRow>`SELECT ${columns} FROM agents WHERE id = ${id}`
        if (row === undefined) return yield* new AgentNotFound({ id })
        return (yield* withCounts([toAgent(row)]))[0]!
      }).pipe(storeError("find agent")),
    list: ({ limit, after }) =>
      Effect.gen(function* () {
        const rows =
          after === undefined
            ? yield* sql<AgentRow>`SELECT ${columns} FROM agents ORDER BY created_at, id LIMIT ${limit}`
            : yield* sql<AgentRow>`
                SELECT ${columns} FROM agents
                WHERE (created_at, id) > (SELECT created_at, id FROM agents WHERE id = ${after})
                ORDER BY created_at, id LIMIT ${limit}`
        return yield* withCounts(rows.map(toAgent))
      }).pipe(storeError("list agents")),
    revoke: setStanding("revoke"),
    restore: setStanding("restore")
  })
})

export const layer = Layer.effect(AgentRegistry, make)

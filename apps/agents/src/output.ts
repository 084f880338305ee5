/** How agents are printed: one aligned line each for people, JSON for programs. */
import type { Agent, AgentRecord, StandingChange } from "@productdir/domain"

const standing = (agent: Agent) => (agent.revokedAt === null ? "active" : `revoked ${agent.revokedAt.toISOString()}`)

/** What identifies the agent to an operator: its key's first characters, or its key directory and key id. */
const credential = (agent: Agent) =>
  agent.kind === "registered" ? `key ${agent.keyHint ?? "?"}…` : `signed by ${agent.keyDirectory} key ${agent.keyId}`

export const agentJson = (agent: AgentRecord) => ({
  agent_id: agent.id,
  kind: agent.kind,
  name: agent.name,
  contact: agent.contact,
  key_hint: agent.keyHint,
  key_directory: agent.keyDirectory,
  key_id: agent.keyId,
  registered_from: agent.registeredFrom,
  created_at: agent.createdAt.toISOString(),
  revoked_at: agent.revokedAt?.toISOString() ?? null,
  votes: agent.votes
})

export const tableOf = (agents: ReadonlyArray<AgentRecord>): string => {
  const rows = [
    ["AGENT", "KIND", "NAME", "VOTES", "STANDING", "CREATED"],
    ...agents.map((a) => [a.id, a.kind, a.name, String(a.votes), standing(a), a.createdAt.toISOString()])
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd()
    )
    .join("\n")
}

export const details = (agent: AgentRecord): string =>
  [
    `agent     ${agent.id}`,
    `kind      ${agent.kind}`,
    `name      ${agent.name}`,
    `contact   ${agent.contact ?? "-"}`,
    `proof     ${credential(agent)}`,
    `from      ${agent.registeredFrom === null ? "-" : `network ${agent.registeredFrom} (a keyed hash; agents from one network share it)`}`,
    `created   ${agent.createdAt.toISOString()}`,
    `standing  ${standing(agent)}`,
    `votes     ${agent.votes}${agent.revokedAt === null ? "" : " (kept in the ledger, not counted)"}`
  ].join("\n")

const products = (n: number) => `${n} product${n === 1 ? "" : "s"}`

export const changeLine = (operation: "revoke" | "restore", change: StandingChange): string => {
  const who = `agent ${change.agent.id} (${change.agent.name})`
  if (!change.changed) return `${who} is already ${operation === "revoke" ? "revoked" : "in good standing"}: nothing changed`
  const votes = `${change.votes} vote${change.votes === 1 ? "" : "s"}`
  return operation === "revoke"
    ? `revoked ${who}: ${votes} no longer count; ${products(change.recounted.length)} recounted`
    : `restored ${who}: ${votes} count again; ${products(change.recounted.length)} recounted`
}

export const recountLines = (change: StandingChange): ReadonlyArray<string> =>
  change.recounted.map((r) => `  ${r.id}  up ${r.before.up} -> ${r.after.up}, down ${r.before.down} -> ${r.after.down}`)

/** How agents are printed: one aligned line each for people, JSON for programs. */
import {
  type Agent,
  type AgentRecord,
  discounts,
  type GroupDecision,
  type Product,
  type Recount,
  type TrustFormation,
  type StandingChange,
  type VoteGroup
} from "@productdir/domain"

/**
 * Text an agent chose (its name, its contact), shown on one line as it is: a line break, a tab or a character with
 * no visible form (a zero-width space, a joiner, a direction mark) is written as its escape, and so is a backslash.
 * The API stores such names (they are storable text), and printed raw one could forge a line of the table
 * ("quiet-bot\n<another agent's id>  registered …") or pass for another agent's name ("research\u200b-bot").
 */
const shown = (text: string): string =>
  text.replace(/[\\\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu, (c) =>
    c === "\\" ? "\\\\" : `\\u{${c.codePointAt(0)!.toString(16)}}`
  )

/** Rows as columns, each as wide as its widest cell. */
const aligned = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
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

/** Active or revoked: whether its votes count at all. */
const status = (agent: Agent) => (agent.revokedAt === null ? "active" : `revoked ${agent.revokedAt.toISOString()}`)

/**
 * Its standing (voteCounting.ts): whether its votes count at once in a burst. An agent gains it old enough, with
 * votes that counted and in no group; a member of a group an operator confirmed, or one found and not cleared, has none.
 */
const standing = (agent: Agent) =>
  agent.standingSince === null
    ? "none: in a burst its votes wait for the integrity pass"
    : `since ${agent.standingSince.toISOString()}: its votes count at once, in a burst too`

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
  standing_since: agent.standingSince?.toISOString() ?? null,
  votes: agent.votes
})

export const tableOf = (agents: ReadonlyArray<AgentRecord>): string => {
  const rows = [
    ["AGENT", "KIND", "NAME", "VOTES", "STATUS", "STANDING", "CREATED"],
    ...agents.map((a) => [
      a.id,
      a.kind,
      shown(a.name),
      String(a.votes),
      a.revokedAt === null ? "active" : "revoked",
      a.standingSince === null ? "none" : "yes",
      a.createdAt.toISOString()
    ])
  ]
  return aligned(rows)
}

export const details = (agent: AgentRecord): string =>
  [
    `agent     ${agent.id}`,
    `kind      ${agent.kind}`,
    `name      ${shown(agent.name)}`,
    `contact   ${agent.contact === null ? "-" : shown(agent.contact)}`,
    `proof     ${credential(agent)}`,
    `from      ${agent.registeredFrom === null ? "-" : `network ${agent.registeredFrom} (a keyed hash; agents from one network share it)`}`,
    `created   ${agent.createdAt.toISOString()}`,
    `status    ${status(agent)}`,
    `standing  ${standing(agent)}`,
    `votes     ${agent.votes}${agent.revokedAt === null ? "" : " (kept in the ledger, not counted)"}`
  ].join("\n")

const products = (n: number) => `${n} product${n === 1 ? "" : "s"}`

export const changeLine = (operation: "revoke" | "restore", change: StandingChange): string => {
  const who = `agent ${change.agent.id} (${shown(change.agent.name)})`
  if (!change.changed) return `${who} is already ${operation === "revoke" ? "revoked" : "active"}: nothing changed`
  const one = change.votes === 1
  const votes = `${change.votes} vote${one ? "" : "s"}`
  return operation === "revoke"
    ? `revoked ${who}: ${votes} no longer count${one ? "s" : ""}; ${products(change.recounted.length)} recounted`
    : `restored ${who}: ${votes} count${one ? "s" : ""} again; ${products(change.recounted.length)} recounted`
}

export const recountLines = (change: { readonly recounted: ReadonlyArray<Recount> }): ReadonlyArray<string> =>
  change.recounted.map((r) => `  ${r.id}  up ${r.before.up} -> ${r.after.up}, down ${r.before.down} -> ${r.after.down}`)

export const groupJson = (group: VoteGroup) => ({
  group_id: group.id,
  status: group.status,
  found_at: group.foundAt.toISOString(),
  decided_at: group.decidedAt?.toISOString() ?? null,
  method: group.evidence.method,
  members: group.evidence.members,
  products: group.evidence.products,
  windows: group.evidence.windows,
  networks: group.evidence.networks,
  votes: group.evidence.votes,
  coverage: group.evidence.coverage ?? null,
  focus: group.evidence.focus ?? null,
  awaiting_review: group.status === "suspected" && group.evidence.review === true
})

export const groupTable = (groups: ReadonlyArray<VoteGroup>): string =>
  aligned([
    ["GROUP", "STATUS", "METHOD", "MEMBERS", "PRODUCTS", "VOTES", "FOUND"],
    ...groups.map((g) => [
      g.id,
      g.status === "suspected" && g.evidence.review === true ? "review" : g.status,
      g.evidence.method,
      String(g.evidence.members.length),
      String(g.evidence.products.length),
      String(g.evidence.votes),
      g.foundAt.toISOString()
    ])
  ])

const METHOD = {
  lockstep: "lockstep: its members voted the same products within the same hours",
  overlap: "overlap: its members' votes share the same products far beyond chance, at any time",
  addresses: "addresses: addresses that vote nothing else voted one product one way, far beyond what its agents and its other visitors say"
} as const

export const groupDetails = (group: VoteGroup): string =>
  [
    `group     ${group.id}`,
    `status    ${group.status}${group.decidedAt === null ? "" : ` (decided ${group.decidedAt.toISOString()})`}`,
    `found     ${group.foundAt.toISOString()}`,
    `method    ${METHOD[group.evidence.method]}`,
    `votes     ${group.evidence.votes} ${group.status === "cleared" ? "(counted: the group was cleared)" : discounts(group) ? "(discounted)" : "(still counted: awaiting your review; confirm discounts them, clear keeps them)"}`,
    `shape     coverage ${group.evidence.coverage ?? "-"} (its votes ÷ members × products), focus ${group.evidence.focus ?? "-"} (the median member's share of recent votes that are the group's)`,
    `members   ${group.evidence.members.length}`,
    ...group.evidence.members.map((m) => `  ${m}`),
    `products  ${group.evidence.products.length}, with when the group's votes on each were cast`,
    ...group.evidence.windows.map((w) => `  ${w.product}  ${w.from} .. ${w.to}`),
    `networks  ${group.evidence.networks.length} (keyed hashes of IPv6 /48s and IPv4 /24s; "unknown" where a vote came with none)`,
    ...group.evidence.networks.map((w) => `  ${w.network}  ${w.votes} vote${w.votes === 1 ? "" : "s"}`)
  ].join("\n")

export const decisionLine = (decision: GroupDecision): string => {
  const group = `group ${decision.group.id}`
  if (!decision.changed) return `${group} is already ${decision.group.status}: nothing changed`
  const one = decision.votes === 1
  const votes = `${decision.votes} vote${one ? "" : "s"}`
  return decision.group.status === "cleared"
    ? `cleared ${group}: ${votes} count${one ? "s" : ""} again, and no later pass discounts ${one ? "it" : "them"}; ${products(decision.recounted.length)} recounted`
    : `confirmed ${group}: its votes stay discounted (${votes} discounted now), its members lose standing; ${products(decision.recounted.length)} recounted`
}

const votes = (n: number) => `${n} vote${n === 1 ? "" : "s"}`

/** A product's held votes by why they wait, and its counted votes by what each weighs: the sum an agent can redo. */
export const heldLines = (product: Product, formation: TrustFormation): string =>
  [
    `product   ${shown(product.content.name)} (${product.id})`,
    `held      ${formation.held === 0 ? "none" : votes(formation.held)}`,
    ...formation.held_because.map((h) => `  ${votes(h.votes)} ${h.reason}: ${h.explanation}`),
    `counted   ${votes(formation.agents.up + formation.agents.down + formation.addresses.up + formation.addresses.down)} by weight (a vote weighs its voter's standing when it was cast), and ${votes(formation.seed.up + formation.seed.down)} of seed at 1 each`,
    ...formation.weights.map((w) => `  ${w.weight} each: ${w.up} up, ${w.down} down`),
    `judged    ${Math.round(formation.judged_share * 10_000) / 10_000} up share, pulled toward ${formation.prior.share} by a prior of ${votes(formation.prior.votes)}`,
    `discounted ${votes(formation.discounted)} (of voter groups the integrity pass found)`
  ].join("\n")

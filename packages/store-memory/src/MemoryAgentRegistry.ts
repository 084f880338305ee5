/** AgentRegistry over the in-memory state: each operation one synchronous step, revocation and recount included. */
import { Clock, Effect, Layer, Option } from "effect"
import {
  type Agent,
  type AgentId,
  agentLedgerKey,
  AgentNotFound,
  type AgentRecord,
  AgentRegistry,
  type ProductId,
  type Recount,
  type StandingChange
} from "@productdir/domain"
import { announce, MemoryState, recountProducts, type State } from "./State.ts"

const recordOf = (state: State, agent: Agent): AgentRecord => {
  const key = agentLedgerKey(agent.id)
  let votes = 0
  for (const ballots of state.votes.values()) if (ballots.has(key)) votes++
  // One vote per product and voter: products voted on = votes.
  return { ...agent, votes, products: votes }
}

/** Marks (or unmarks, with `at` null) every vote and report of the agent, and recounts its products. */
const setStanding = (state: State, id: AgentId, at: Date | null): Effect.Effect<StandingChange, AgentNotFound> =>
  Effect.suspend((): Effect.Effect<StandingChange, AgentNotFound> => {
    const stored = state.agents.get(id)
    if (stored === undefined) return Effect.fail(new AgentNotFound({ id }))
    if ((stored.agent.revokedAt === null) === (at === null)) {
      return Effect.succeed({ agent: stored.agent, changed: false, votes: 0, recounted: [] })
    }
    stored.agent = { ...stored.agent, revokedAt: at }
    const key = agentLedgerKey(id)
    let votes = 0
    const touched: Array<string> = []
    for (const [productId, ballots] of state.votes) {
      const vote = ballots.get(key)
      if (vote === undefined) continue
      vote.revokedAt = at
      votes++
      touched.push(productId)
    }
    for (const byKey of state.reports.values()) {
      for (const voters of byKey.values()) {
        const report = voters.get(key)
        if (report !== undefined) report.revokedAt = at
      }
    }
    const recounted: Array<Recount> = recountProducts(state, touched)
    // Every product it voted on: its counters, and its problems (the agent's reports), may read differently now.
    announce(state, touched as Array<ProductId>)
    return Effect.succeed({ agent: stored.agent, changed: true, votes, recounted })
  })

const make = (state: State) =>
  AgentRegistry.of({
    register: (input) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        const agent: Agent = {
          id: input.id,
          kind: "registered",
          name: input.name,
          contact: input.contact,
          keyHint: input.keyHint,
          keyDirectory: null,
          keyId: null,
          registeredFrom: input.registeredFrom,
          createdAt: new Date(millis),
          revokedAt: null,
          standingSince: null
        }
        state.agents.set(agent.id, { agent, keyHash: input.keyHash })
        state.agentKeys.set(input.keyHash, agent.id)
        return agent
      }),
    byKeyHash: (keyHash) =>
      Effect.sync(() => {
        const id = state.agentKeys.get(keyHash)
        return Option.fromNullishOr(id === undefined ? undefined : state.agents.get(id)?.agent)
      }),
    findSigned: (identity) =>
      Effect.sync(() => {
        // The key is the agent, whatever URL named it; a revoked one first, then the one of this URL, then the oldest.
        const order = (a: Agent, b: Agent) =>
          Number(a.revokedAt === null) - Number(b.revokedAt === null) ||
          Number(a.keyDirectory !== identity.keyDirectory) - Number(b.keyDirectory !== identity.keyDirectory) ||
          a.createdAt.getTime() - b.createdAt.getTime() ||
          (a.id < b.id ? -1 : 1)
        const holders = [...state.agents.values()].map((s) => s.agent).filter((a) => a.keyId === identity.keyId)
        holders.sort(order)
        return Option.fromNullishOr(holders[0])
      }),
    enrolSigned: (input) =>
      Effect.map(Clock.currentTimeMillis, (millis) => {
        const key = `${input.keyDirectory} ${input.keyId}`
        const known = state.signedAgents.get(key)
        const existing = known === undefined ? undefined : state.agents.get(known)
        if (existing !== undefined) return existing.agent
        const agent: Agent = {
          id: input.id,
          kind: "signed",
          name: input.keyDirectory,
          contact: null,
          keyHint: null,
          keyDirectory: input.keyDirectory,
          keyId: input.keyId,
          registeredFrom: input.registeredFrom,
          createdAt: new Date(millis),
          revokedAt: null,
          standingSince: null
        }
        state.agents.set(agent.id, { agent, keyHash: null })
        state.signedAgents.set(key, agent.id)
        return agent
      }),
    find: (id) =>
      Effect.suspend(() => {
        const stored = state.agents.get(id)
        return stored === undefined ? Effect.fail(new AgentNotFound({ id })) : Effect.succeed(recordOf(state, stored.agent))
      }),
    list: ({ limit, after }) =>
      Effect.sync(() =>
        [...state.agents.values()]
          .map((s) => s.agent)
          .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
          .filter((_, index, all) => after === undefined || index > all.findIndex((a) => a.id === after))
          .slice(0, limit)
          .map((agent) => recordOf(state, agent))
      ),
    revoke: (id) => Effect.flatMap(Clock.currentTimeMillis, (millis) => setStanding(state, id, new Date(millis))),
    restore: (id) => setStanding(state, id, null)
  })

export const layer = Layer.effect(AgentRegistry, MemoryState.useSync(make))

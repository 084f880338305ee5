/**
 * Agents: registration, signed enrolment, and standing. A revoked agent's votes
 * stay in the ledger and stop counting; its products are recounted at once, a
 * vote it casts afterwards is refused, and a restore undoes all of it.
 */
import { assert } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import { TestClock } from "effect/testing"
import {
  agentLedgerKey,
  AgentRegistry,
  type AgentId,
  addressVoter,
  agentVoter,
  CatalogStore,
  ProblemStore,
  VoteLedger
} from "@productdir/domain"
import { OperatorEdits } from "./OperatorEdits.ts"
import { freshInput, rng, upsertOne } from "./inputs.ts"
import type { ContractIt } from "./contractIt.ts"

const newId = () => rng.uuid() as AgentId

/** A registered agent with a key hash of its own. */
export const registerAgent = (name = "agent") =>
  AgentRegistry.use((registry) =>
    registry.register({ id: newId(), name, contact: null, keyHash: `hash-${rng.uuid()}`, keyHint: "pdk_test", registeredFrom: "network-a" })
  )

export const agentsBehaviours = (it: ContractIt) => {
  it.effect("a registered agent is found by its key hash, and only by it", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const id = newId()
      const keyHash = `hash-${rng.uuid()}`
      const agent = yield* registry.register({
        id,
        name: "research-bot",
        contact: "mailto:ops@example.com",
        keyHash,
        keyHint: "pdk_abcd",
        registeredFrom: "network-b"
      })
      assert.deepStrictEqual(
        {
          id: agent.id,
          kind: agent.kind,
          name: agent.name,
          contact: agent.contact,
          keyHint: agent.keyHint,
          registeredFrom: agent.registeredFrom,
          revokedAt: agent.revokedAt
        },
        {
          id,
          kind: "registered",
          name: "research-bot",
          contact: "mailto:ops@example.com",
          keyHint: "pdk_abcd",
          registeredFrom: "network-b",
          revokedAt: null
        }
      )
      assert.deepStrictEqual(
        Option.map(yield* registry.byKeyHash(keyHash), (a) => a.id),
        Option.some(id)
      )
      assert.isTrue(Option.isNone(yield* registry.byKeyHash(`${keyHash}x`)))
      const record = yield* registry.find(id)
      assert.deepStrictEqual([record.votes, record.products], [0, 0])
      assert.strictEqual((yield* Effect.flip(registry.find(newId())))._tag, "AgentNotFound")
    })
  )

  it.effect("a signed agent is enrolled once, however many first votes race", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const identity = { keyDirectory: `https://${rng.uuid().slice(0, 8)}.example`, keyId: rng.uuid() }
      assert.isTrue(Option.isNone(yield* registry.findSigned(identity)))
      const agents = yield* Effect.forEach(
        Array.from({ length: 10 }),
        () => registry.enrolSigned({ ...identity, id: newId(), registeredFrom: "network-c" }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(agents.map((a) => a.id)).size, 1)
      assert.deepStrictEqual(
        [agents[0]!.kind, agents[0]!.keyDirectory, agents[0]!.keyId],
        ["signed", identity.keyDirectory, identity.keyId]
      )
      assert.deepStrictEqual(
        Option.map(yield* registry.findSigned(identity), (a) => a.id),
        Option.some(agents[0]!.id)
      )
      const other = yield* registry.enrolSigned({ ...identity, keyId: rng.uuid(), id: newId(), registeredFrom: null })
      assert.notStrictEqual(other.id, agents[0]!.id)
    })
  )

  it.effect("agents are listed oldest first, in pages", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const mine = new Set<string>()
      for (let i = 0; i < 5; i++) {
        mine.add((yield* registerAgent(`lister-${i}`)).id)
        yield* TestClock.adjust("1 second")
      }
      const seen: Array<string> = []
      let after: AgentId | undefined
      for (let page = 0; page < 1000; page++) {
        const agents = yield* registry.list({ limit: 2, after })
        if (agents.length === 0) break
        assert.isAtMost(agents.length, 2)
        seen.push(...agents.map((a) => a.id))
        after = agents.at(-1)!.id
      }
      assert.strictEqual(new Set(seen).size, seen.length)
      assert.deepStrictEqual(
        seen.filter((id) => mine.has(id)),
        [...mine]
      )
    })
  )

  it.effect("a revoked agent's votes stay, stop counting at once, and count again when it is restored", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const ledger = yield* VoteLedger
      const store = yield* CatalogStore
      const agent = yield* registerAgent("revokee")
      const a = freshInput({ seed: { up: 3, down: 1 } })
      const b = freshInput()
      yield* store.upsert([a, b])
      yield* ledger.cast({ entity: a.id, voter: agentVoter(agent.id), direction: "up" })
      yield* ledger.cast({ entity: b.id, voter: agentVoter(agent.id), direction: "down" })
      yield* ledger.cast({ entity: a.id, voter: addressVoter("bystander"), direction: "up" })
      assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 5, down: 1 })

      const revoked = yield* registry.revoke(agent.id)
      assert.isTrue(revoked.changed)
      assert.isNotNull(revoked.agent.revokedAt)
      assert.strictEqual(revoked.votes, 2)
      assert.deepStrictEqual(
        [...revoked.recounted].sort((x, y) => (x.id < y.id ? -1 : 1)),
        [
          { id: a.id, before: { up: 5, down: 1 }, after: { up: 4, down: 1 } },
          { id: b.id, before: { up: 0, down: 1 }, after: { up: 0, down: 0 } }
        ].sort((x, y) => (x.id < y.id ? -1 : 1))
      )
      assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 4, down: 1 })
      // The votes stay in the ledger: the agent's record still shows them.
      assert.strictEqual((yield* registry.find(agent.id)).votes, 2)
      // A vote it casts now is refused and counts nothing.
      const refused = yield* Effect.flip(ledger.cast({ entity: a.id, voter: agentVoter(agent.id), direction: "down" }))
      assert.strictEqual(refused._tag, "AgentRevoked")
      assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 4, down: 1 })
      // Revoking again changes nothing.
      const again = yield* registry.revoke(agent.id)
      assert.deepStrictEqual([again.changed, again.votes, again.recounted.length], [false, 0, 0])

      const restored = yield* registry.restore(agent.id)
      assert.deepStrictEqual([restored.changed, restored.votes, restored.agent.revokedAt], [true, 2, null])
      assert.deepStrictEqual((yield* store.find(a.id)).counters, { up: 5, down: 1 })
      assert.deepStrictEqual((yield* store.find(b.id)).counters, { up: 0, down: 1 })
      const after = yield* ledger.cast({ entity: a.id, voter: agentVoter(agent.id), direction: "up" })
      assert.strictEqual(after.status, "unchanged")
    })
  )

  it.effect("a revoked agent's problem reports stop counting too", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const ledger = yield* VoteLedger
      const agent = yield* registerAgent("reporter")
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "down", reason: "Loses data on sync" })
      yield* ledger.cast({ entity: input.id, voter: addressVoter("witness"), direction: "down", reason: "loses data on sync" })
      const reports = () =>
        Effect.map(
          ProblemStore.use((p) => p.reported(input.id)),
          (r) => [r.reduce((n, x) => n + x.agents + x.addresses, 0)].filter((n) => n > 0)
        )
      assert.deepStrictEqual(yield* reports(), [2])
      yield* registry.revoke(agent.id)
      assert.deepStrictEqual(yield* reports(), [1])
      yield* registry.restore(agent.id)
      assert.deepStrictEqual(yield* reports(), [2])
    })
  )

  it.effect("reconciliation counts only the votes of agents in good standing", () =>
    Effect.gen(function* () {
      const registry = yield* AgentRegistry
      const ledger = yield* VoteLedger
      const operatorEdits = yield* OperatorEdits
      const agent = yield* registerAgent("drifter")
      const input = freshInput({ seed: { up: 1, down: 0 } })
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up" })
      yield* registry.revoke(agent.id)
      // Drift that counts the revoked vote again: the repair takes it back out.
      yield* operatorEdits.setCounters(input.id, { up: 2, down: 0 })
      const snapshots = (yield* Stream.runCollect(ledger.snapshots(1000))).flat().filter((s) => s.id === input.id)
      assert.deepStrictEqual(
        snapshots.map((s) => s.ledger),
        [{ up: 0, down: 0 }]
      )
      const repairs = yield* ledger.repair(snapshots)
      assert.deepStrictEqual(
        repairs.map((r) => r.after),
        [{ up: 1, down: 0 }]
      )
    })
  )

  it.effect(
    "votes racing a revocation: every vote that landed is marked, none counts afterwards",
    () =>
      Effect.gen(function* () {
        const registry = yield* AgentRegistry
        const ledger = yield* VoteLedger
        const store = yield* CatalogStore
        const agent = yield* registerAgent("racer")
        const inputs = Array.from({ length: 30 }, () => freshInput({ seed: { up: 2, down: 2 } }))
        yield* store.upsert(inputs)
        yield* Effect.all(
          [
            Effect.forEach(
              inputs,
              (input) => Effect.result(ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up" })),
              { concurrency: 8 }
            ),
            Effect.andThen(Effect.yieldNow, registry.revoke(agent.id))
          ],
          { concurrency: "unbounded" }
        )
        for (const input of inputs) assert.deepStrictEqual((yield* store.find(input.id)).counters, { up: 2, down: 2 })
        const restored = yield* registry.restore(agent.id)
        const landed = (yield* registry.find(agent.id)).votes
        assert.strictEqual(restored.votes, landed)
        let counted = 0
        for (const input of inputs) counted += (yield* store.find(input.id)).counters.up - 2
        assert.strictEqual(counted, landed)
      }),
    120_000
  )

  it.effect("an agent's votes are kept under its own ledger key", () =>
    Effect.gen(function* () {
      const ledger = yield* VoteLedger
      const operatorEdits = yield* OperatorEdits
      const agent = yield* registerAgent("keyed")
      const input = freshInput()
      yield* upsertOne(input)
      yield* ledger.cast({ entity: input.id, voter: agentVoter(agent.id), direction: "up" })
      // Deleting the row under the agent's key removes the vote: the key is the one the ledger uses.
      yield* operatorEdits.deleteVote(input.id, agentLedgerKey(agent.id))
      const snapshot = (yield* Stream.runCollect(ledger.snapshots(1000))).flat().find((s) => s.id === input.id)
      assert.deepStrictEqual(snapshot?.ledger, { up: 0, down: 0 })
    })
  )
}

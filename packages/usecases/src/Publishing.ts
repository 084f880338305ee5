/**
 * Publishers (docs/decisions.md, "Publishers"): a claim of a domain answered with a challenge; the proof read from
 * the domain's site or its DNS, earning a key shown once; and, with the key, changes to the records of the products
 * whose website is on the domain. A change is checked by the import's rules (the same limits, the same hidden-text
 * normalization: a publisher's text is content from outside, as any record's is) and made only against the version
 * it was read at.
 */
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"
import { decide, type Decision, RateLimits } from "@productdir/domain"
import { randomBytes, randomUUID } from "node:crypto"
import {
  CATALOG_FIELD_NAMES,
  CatalogStore,
  claimedDomain,
  DomainProofs,
  type Product,
  type ProductNotFound,
  type ProductRemoved,
  type ProofMethod,
  type ProofUnreadable,
  type Publisher,
  type PublisherChallenge,
  type PublisherCredentials,
  type PublisherId,
  PublisherStore,
  AuditTrail,
  productSubject,
  publisherSubject,
  type Problem,
  ProblemStore,
  problemsOf,
  REPLY_LIMIT,
  tidyReason,
  StoreError,
  SUSPEND_AFTER_FAILED_CHECKS,
  toChallenge,
  toExportRecord,
  type VersionConflict,
  websiteDomain
} from "@productdir/domain"
import { type Checked, checkRecord, type FieldError } from "./ImportChecks.ts"
import {
  AlreadyVerified,
  ChangeRefused,
  DomainRefused,
  DomainTaken,
  NotTheirs,
  ProblemNotFound,
  ProofMissing,
  PublisherKeyRefused,
  PublisherNotFound,
  PublishingLimited
} from "./publishingErrors.ts"

export * from "./publishingErrors.ts"
import { findLookAlikes } from "./ImportLookAlikes.ts"
import { keyHash } from "./AgentKeys.ts"
import type { NetworkLevel } from "./network.ts"
import { VoterIdentity } from "./VoterIdentity.ts"

const DAY_SECONDS = 86_400

/** Where a domain's proof was found, or what each place answered. */
type Proof =
  | { readonly _tag: "Found"; readonly method: ProofMethod }
  | { readonly _tag: "Missing"; readonly http: string; readonly dns: string }
/** Publishers a round of checks reads at most (the next round takes the rest), and how many at once. */
const RECHECK_ROUND = 10_000
const RECHECK_CONCURRENCY = 8

export interface PublishingSettings {
  /**
   * Claims and verifications per day at each level of a client's networks, as registrations are budgeted (Agents.ts):
   * a verification fetches from the internet, and a claim is a row kept.
   */
  readonly attemptsPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
}

/** Who is claiming or verifying: the client's address, and whether it is this host (never limited). */
export interface Claimant {
  readonly address: string
  readonly local: boolean
}

export const PUBLISHER_KEY_PREFIX = "pdp_"
const KEY_SHAPE = /^pdp_[A-Za-z0-9_-]{43}$/u

/** The fields of a record a publisher may change: its content. Never its id, slug, trust, version or dates. */
export const EDITABLE_FIELDS: ReadonlyArray<string> = [...CATALOG_FIELD_NAMES, "trust_signals", "problems"]

export class Publishing extends Context.Service<
  Publishing,
  {
    /** A pending claim of the domain `claimed` names (its registrable domain), with its challenge. */
    readonly claim: (
      claimed: string,
      verifyPath: (id: PublisherId) => string,
      claimant: Claimant
    ) => Effect.Effect<PublisherChallenge, DomainRefused | DomainTaken | PublishingLimited | StoreError>
    /** Reads the claim's proof (HTTP first, then DNS); proven, the publisher's key, shown once. */
    readonly verify: (
      id: PublisherId,
      claimant: Claimant
    ) => Effect.Effect<
      PublisherCredentials,
      PublisherNotFound | AlreadyVerified | DomainTaken | ProofMissing | PublishingLimited | StoreError
    >
    /** A claim or a publisher, by its id: its status and its proof's checks. */
    readonly find: (id: PublisherId) => Effect.Effect<Publisher, PublisherNotFound | StoreError>
    /**
     * A round of checks: every verified publisher whose proof was last read more than `olderThan` ago is read again;
     * three failures in a row suspend it (its key stops working; its products' records stay).
     */
    readonly recheck: (olderThan: Duration.Duration) => Effect.Effect<{ readonly checked: number; readonly suspended: number }, StoreError>
    /** The verified publisher a key belongs to. */
    readonly authenticate: (key: string) => Effect.Effect<Publisher, PublisherKeyRefused | StoreError>
    /** Whether the product is the publisher's: its website is on the publisher's domain. */
    readonly owned: (publisher: Publisher, product: Product) => Effect.Effect<void, NotTheirs>
    /** A new product on the publisher's domain, from a whole record's content fields: checked as an import checks one. */
    readonly create: (publisher: Publisher, record: Readonly<Record<string, unknown>>) => Effect.Effect<Product, ChangeRefused | StoreError>
    /**
     * The publisher's reply to a problem of its product (a later one replaces it), said to be fixed in a version of the
     * record if it says so; the problem as it reads now.
     */
    readonly reply: (
      publisher: Publisher,
      product: Product,
      problemId: string,
      reply: { readonly text: string; readonly fixedInVersion: number | undefined }
    ) => Effect.Effect<Problem, NotTheirs | ProblemNotFound | ChangeRefused | StoreError>
    /** Changes the product's record by `change` (some of EDITABLE_FIELDS), made against version `expected`. */
    readonly edit: (
      publisher: Publisher,
      product: Product,
      change: Readonly<Record<string, unknown>>,
      expected: number
    ) => Effect.Effect<Product, NotTheirs | ChangeRefused | ProductNotFound | ProductRemoved | VersionConflict | StoreError>
  }
>()("@productdir/usecases/Publishing") {}

const NO_TRACKING = { source: "", medium: "", campaign: "" }

/** Why a read proof did not prove the claim, in words that finish "…: ". */
const why = (read: Effect.Effect<boolean, ProofUnreadable>, missing: string) =>
  read.pipe(
    Effect.map((proven) => (proven ? undefined : missing)),
    Effect.catchTag("ProofUnreadable", (error) => Effect.succeed(error.message))
  )

export const layer = (settings: PublishingSettings) =>
  Layer.effect(
    Publishing,
    Effect.gen(function* () {
      const limits = yield* RateLimits
      const identity = yield* VoterIdentity
      /** One attempt from the claimant's networks' daily budgets; this host's own are not limited. */
      const attempt = (claimant: Claimant) =>
        Effect.flatMap(
          claimant.local
            ? Effect.succeed(decide([]))
            : limits.take(
                identity.networkKeys(claimant.address).map((network) => ({
                  key: `publish:${network.level}:${network.key}`,
                  max: settings.attemptsPerNetwork[network.level as NetworkLevel] ?? 0,
                  windowSeconds: DAY_SECONDS
                }))
              ),
          (decision: Decision) => {
            if (decision._tag !== "Limited") return Effect.void
            const { limit, windowSeconds, retryAfterSeconds, resetSeconds, key } = decision
            return Effect.fail(new PublishingLimited({ limit, windowSeconds, retryAfterSeconds, resetSeconds, key }))
          }
        )
      const store = yield* PublisherStore
      const catalog = yield* CatalogStore
      const proofs = yield* DomainProofs
      const problems = yield* ProblemStore
      const trail = yield* AuditTrail
      /** One line of the audit trail, stamped now. */
      const audit = (entry: Omit<Parameters<typeof trail.record>[0], "at">) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => trail.record({ ...entry, at: new Date(now) }))

      /** Where the token of `publisher` is found (HTTPS first, then DNS), or what each place answered. */
      const readProof = (publisher: Publisher) =>
        Effect.gen(function* () {
          const http = yield* why(
            Effect.map(proofs.httpToken(publisher.domain), (body) => body === publisher.token),
            `https://${publisher.domain}/.well-known/productdir-challenge does not serve the token`
          )
          if (http === undefined) return { _tag: "Found", method: "http" } as Proof
          const dns = yield* why(
            Effect.map(proofs.dnsTexts(publisher.domain), (texts) => texts.includes(publisher.token)),
            `no TXT record of _productdir.${publisher.domain} holds the token`
          )
          return (dns === undefined ? { _tag: "Found", method: "dns" } : { _tag: "Missing", http, dns }) as Proof
        })

      const owned = (publisher: Publisher, product: Product) =>
        websiteDomain(product.content.website) === publisher.domain
          ? Effect.void
          : Effect.fail(new NotTheirs({ domain: publisher.domain, website: product.content.website }))

      // The website stays on the publisher's domain: a record moved off it would be nobody's to correct.
      const onDomain = (publisher: Publisher, checked: Extract<Checked, { readonly _tag: "Valid" }>) =>
        websiteDomain(checked.input.content.website) === publisher.domain
          ? Effect.void
          : Effect.fail(
              new ChangeRefused({
                errors: [
                  {
                    path: "trust_signals.website",
                    message: `must be on ${publisher.domain}, the publisher's domain (the website is ${checked.input.content.website})`
                  }
                ]
              })
            )

      return Publishing.of({
        claim: Effect.fn("Publishing.claim")(function* (claimed, verifyPath, claimant) {
          const found = claimedDomain(claimed)
          if ("issue" in found) return yield* new DomainRefused({ claimed, issue: found.issue })
          yield* attempt(claimant)
          if (Option.isSome(yield* store.verifiedFor(found.domain))) return yield* new DomainTaken({ domain: found.domain })
          const publisher: Publisher = {
            id: randomUUID() as PublisherId,
            domain: found.domain,
            status: "pending",
            token: `productdir-verify-${randomBytes(24).toString("base64url")}`,
            method: null,
            keyHash: null,
            createdAt: new Date(yield* Clock.currentTimeMillis),
            verifiedAt: null,
            failedChecks: 0,
            checkedAt: null,
            checkNote: null,
            suspendedAt: null
          }
          yield* store.claim(publisher)
          yield* audit({
            actor: { kind: "publisher", domain: publisher.domain },
            action: "claim",
            subject: publisherSubject(publisher.id),
            reason: null,
            detail: `claimed ${publisher.domain}, pending its proof`
          })
          return toChallenge(publisher, verifyPath(publisher.id))
        }),
        verify: Effect.fn("Publishing.verify")(function* (id, claimant) {
          const claim = Option.getOrUndefined(yield* store.find(id))
          if (claim === undefined) return yield* new PublisherNotFound({ id })
          if (claim.status !== "pending") return yield* new AlreadyVerified({ domain: claim.domain })
          if (Option.isSome(yield* store.verifiedFor(claim.domain))) return yield* new DomainTaken({ domain: claim.domain })
          // Before anything is fetched: a verification reaches out to the internet.
          yield* attempt(claimant)
          const proof = yield* readProof(claim)
          if (proof._tag === "Missing")
            return yield* new ProofMissing({ domain: claim.domain, token: claim.token, http: proof.http, dns: proof.dns })
          const { method } = proof
          const key = `${PUBLISHER_KEY_PREFIX}${randomBytes(32).toString("base64url")}`
          const at = new Date(yield* Clock.currentTimeMillis)
          const verified = Option.getOrUndefined(yield* store.verify(id, { method, keyHash: keyHash(key), at }))
          // Another claim of the domain was proven meanwhile.
          if (verified === undefined) return yield* new DomainTaken({ domain: claim.domain })
          yield* audit({
            actor: { kind: "publisher", domain: verified.domain },
            action: "verify",
            subject: publisherSubject(verified.id),
            reason: null,
            detail: `proved ${verified.domain} by ${method === "http" ? "its HTTPS challenge" : "a DNS TXT record"}`
          })
          return {
            publisher_id: verified.id,
            domain: verified.domain,
            status: verified.status,
            method,
            verified_at: at.toISOString(),
            api_key: key
          }
        }),
        find: (id) =>
          Effect.flatMap(
            store.find(id),
            Option.match({ onNone: () => Effect.fail(new PublisherNotFound({ id })), onSome: Effect.succeed })
          ),
        recheck: Effect.fn("Publishing.recheck")(function* (olderThan) {
          const now = yield* Clock.currentTimeMillis
          const due = yield* store.due(new Date(now - Duration.toMillis(olderThan)), RECHECK_ROUND)
          let suspended = 0
          yield* Effect.forEach(
            due,
            (publisher) =>
              Effect.gen(function* () {
                const proof = yield* readProof(publisher)
                const note = proof._tag === "Missing" ? `${proof.http}; ${proof.dns}` : null
                const after = yield* store.recordCheck(publisher.id, { at: new Date(now), note, suspendAfter: SUSPEND_AFTER_FAILED_CHECKS })
                if (Option.isSome(after) && after.value.status === "suspended") {
                  suspended++
                  yield* audit({
                    actor: { kind: "schedule" },
                    action: "suspend",
                    subject: publisherSubject(publisher.id),
                    reason: note,
                    detail: `${publisher.domain}: its proof not found ${SUSPEND_AFTER_FAILED_CHECKS} checks in a row`
                  })
                  yield* Effect.logWarning(
                    `publisher of ${publisher.domain} suspended: its proof was not found ${SUSPEND_AFTER_FAILED_CHECKS} checks in a row (${note})`
                  )
                }
              }),
            // Polite: a few domains at a time, each fetch bounded (DomainProofs).
            { concurrency: RECHECK_CONCURRENCY, discard: true }
          )
          return { checked: due.length, suspended }
        }),
        authenticate: (key) =>
          KEY_SHAPE.test(key)
            ? Effect.flatMap(store.byKeyHash(keyHash(key)), (found) =>
                Option.match(found, { onNone: () => Effect.fail(new PublisherKeyRefused()), onSome: Effect.succeed })
              )
            : Effect.fail(new PublisherKeyRefused()),
        owned,
        create: Effect.fn("Publishing.create")(function* (publisher, record) {
          const value = { ...record, id: randomUUID(), trust: { trust_up: 0, trust_down: 0 } }
          const checked = checkRecord({ _tag: "Parsed", position: { index: 0 }, value, repeated: [], bytes: 0 })
          if (checked._tag === "Rejected") return yield* new ChangeRefused({ errors: checked.rejection.errors.map((e: FieldError) => e) })
          yield* onDomain(publisher, checked)
          // A name that imitates another product's is refused, as for an import's new product.
          const [lookAlike] = yield* findLookAlikes(catalog, [checked])
          if (lookAlike !== undefined) return yield* new ChangeRefused({ errors: [{ path: "name", message: lookAlike.message }] })
          const [created] = yield* catalog.upsert([checked.input])
          yield* audit({
            actor: { kind: "publisher", domain: publisher.domain },
            action: "create",
            subject: productSubject(checked.input.id),
            reason: null,
            detail: `created ${created?.slug ?? checked.input.id}`
          })
          // Just written: not finding it is the store's failure, not the publisher's.
          return yield* catalog.find(checked.input.id).pipe(
            Effect.catchTags({
              ProductNotFound: () =>
                Effect.fail(new StoreError({ operation: "create", detail: "the new product was not found after it was written" })),
              ProductRemoved: () =>
                Effect.fail(new StoreError({ operation: "create", detail: "the new product was removed as it was written" }))
            })
          )
        }),
        reply: Effect.fn("Publishing.reply")(function* (publisher, product, problemId, reply) {
          yield* owned(publisher, product)
          const listed = (replies: Parameters<typeof problemsOf>[2]) =>
            Effect.map(problems.reported(product.id), (reported) => problemsOf(product, reported, replies).find((p) => p.id === problemId))
          if ((yield* listed([])) === undefined) return yield* new ProblemNotFound({ slug: product.slug, problem: problemId })
          // The vendor's words are content from outside: cleaned as reports are, and bounded.
          const text = tidyReason(reply.text)
          const errors = [
            ...(text.length === 0 ? [{ path: "text", message: "must say something a reader can see" }] : []),
            ...([...text].length > REPLY_LIMIT ? [{ path: "text", message: `must be at most ${REPLY_LIMIT} characters` }] : []),
            ...(reply.fixedInVersion !== undefined && reply.fixedInVersion > product.version
              ? [{ path: "fixed_in_version", message: `must be a version the record has had: it is at version ${product.version}` }]
              : [])
          ]
          if (errors.length > 0) return yield* new ChangeRefused({ errors })
          yield* audit({
            actor: { kind: "publisher", domain: publisher.domain },
            action: "reply",
            subject: productSubject(product.id),
            reason: null,
            detail: `replied to problem ${problemId}${reply.fixedInVersion === undefined ? "" : `, fixed in version ${reply.fixedInVersion}`}`
          })
          yield* problems.reply(product.id, {
            problemId,
            text,
            domain: publisher.domain,
            fixedInVersion: reply.fixedInVersion ?? null,
            repliedAt: new Date(yield* Clock.currentTimeMillis)
          })
          const answered = yield* listed(yield* problems.replies(product.id))
          return answered!
        }),
        edit: Effect.fn("Publishing.edit")(function* (publisher, product, change, expected) {
          yield* owned(publisher, product)
          const unknown = Object.keys(change).filter((k) => !EDITABLE_FIELDS.includes(k))
          if (unknown.length > 0) {
            return yield* new ChangeRefused({
              errors: unknown.map((k) => ({
                path: k,
                message: `is not a field a publisher changes (those are ${EDITABLE_FIELDS.join(", ")}): the id, slug, trust, version and dates are the directory's`
              }))
            })
          }
          // The record as it is, in the import shape, with the change over it: checked as an import checks a record.
          const { trust: _t, ...current } = toExportRecord(product, NO_TRACKING)
          const value = {
            ...current,
            ...change,
            id: product.id,
            slug: product.slug,
            trust: { trust_up: product.seed.up, trust_down: product.seed.down }
          }
          const checked = checkRecord({ _tag: "Parsed", position: { index: 0 }, value, repeated: [], bytes: 0 })
          if (checked._tag === "Rejected") return yield* new ChangeRefused({ errors: checked.rejection.errors.map((e: FieldError) => e) })
          yield* onDomain(publisher, checked)
          const changed = yield* catalog.edit(checked.input, expected, publisher.domain)
          if (changed.version !== product.version) {
            yield* audit({
              actor: { kind: "publisher", domain: publisher.domain },
              action: "edit",
              subject: productSubject(product.id),
              reason: null,
              detail: `version ${changed.version}: ${Object.keys(change).sort().join(", ")}`
            })
          }
          return changed
        })
      })
    })
  )

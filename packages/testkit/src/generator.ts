/**
 * A seeded, deterministic generator of import records for tests and
 * benchmarks: the same (seed, n) gives the same catalog everywhere. Records
 * are about 2 KB each, like real catalog entries.
 */
import type { ImportRecord } from "@productdir/domain"
import { type Random, seeded } from "./random.ts"

const PREFIXES = ["Acme", "Nimbus", "Vector", "Quill", "Harbor", "Lumen", "Atlas", "Cobalt", "Fable", "Orbit", "Pioneer", "Signal", "Tandem", "Umbra", "Willow", "Zephyr"]
const NOUNS = ["Analytics", "Books", "Desk", "Flow", "Forge", "Hub", "Ledger", "Metrics", "Pipeline", "Relay", "Studio", "Vault", "Works", "Board", "Sync", "Guard"]
export const CATEGORIES = ["Analytics", "Accounting", "Customer Support", "Developer Tools", "Design", "Security", "Project Management", "Marketing", "Data Infrastructure", "Communication"]
const VERBS = ["Automates", "Tracks", "Visualises", "Secures", "Schedules", "Reconciles", "Monitors", "Publishes", "Routes", "Summarises"]
const OBJECTS = ["invoices", "dashboards", "support tickets", "deployments", "design tokens", "access reviews", "sprints", "campaigns", "data pipelines", "team chats"]
const AUDIENCES = ["small agencies", "mid-size SaaS teams", "enterprise IT", "solo founders", "data engineers", "support leads", "marketing ops", "product designers"]
const MODELS = ["free", "freemium", "subscription", "per-seat", "usage-based", "open-source", "enterprise"]
const PRICES = ["Free", "$9/mo", "$12/mo", "€9/user/mo", "£29/mo", "$49/mo", "$0.40/1k events", "$1,200/yr", "Contact sales"]

const sentence = (r: Random) =>
  `${r.pick(VERBS)} ${r.pick(OBJECTS)} for ${r.pick(AUDIENCES)} with ${r.pick(["audit trails", "role-based access", "REST and webhooks", "offline mode", "SSO", "usage alerts"])}.`

const list = (r: Random, min: number, max: number, make: (r: Random) => string) =>
  Array.from({ length: r.int(min, max) }, () => make(r))

const date = (r: Random) =>
  `2026-${String(r.int(1, 10)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}T${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}:00`

/** Record `index` of the catalog generated from `seed`. Names carry the index, so slugs are unique. */
export const generateRecord = (seed: number, index: number): ImportRecord => {
  const r = seeded(seed * 1_000_003 + index)
  const name = `${r.pick(PREFIXES)} ${r.pick(NOUNS)} ${index}`
  const host = `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.example`
  const plans = Array.from({ length: r.int(1, 3) }, (_, i) => ({
    name: ["Starter", "Team", "Business"][i]!,
    price: r.pick(PRICES),
    features: list(r, 1, 3, (r) => `${r.int(1, 100)} ${r.pick(["users", "projects", "GB storage", "dashboards", "API keys"])}`)
  }))
  return {
    id: r.uuid() as ImportRecord["id"] & string,
    name,
    category: r.pick(CATEGORIES),
    trust: { trust_up: r.int(0, 300), trust_down: r.int(0, 60) },
    ai_summary: `${name} ${sentence(r).toLowerCase()} ${sentence(r)} ${sentence(r)}`,
    ai_features: list(r, 4, 6, sentence),
    ai_optimization: {
      seeded_at: date(r),
      use_cases: list(r, 2, 4, (r) => `${r.pick(VERBS)} ${r.pick(OBJECTS)}`),
      seeded_url: host,
      ai_benefits: `${sentence(r)} ${sentence(r)}`,
      seeded_from: r.pick(["vendor-submission", "catalog-seed", "community-import"]),
      target_audience: `Built for ${r.pick(AUDIENCES)}.`,
      not_recommended_for: `Teams that need ${r.pick(["on-premise hosting", "HIPAA compliance", "offline-only use", "consolidated multi-entity reports"])}.`,
      competitive_position: `${r.pick(["Cheaper", "Faster", "Simpler", "More configurable"])} than the incumbents; ${r.pick(["fewer integrations", "smaller community", "younger product"])}.`
    },
    recommended_for: list(r, 2, 4, (r) => `Teams that ${r.pick(VERBS).toLowerCase()} ${r.pick(OBJECTS)}`),
    not_recommended_for: list(r, 0, 2, (r) => `Organisations needing ${r.pick(["air-gapped installs", "SOX reporting", "24/7 phone support", "custom SLAs"])}`),
    pricing: { model: r.pick(MODELS), plans },
    key_features: list(r, 3, 6, (r) => `${r.pick(["Smart", "Live", "Bulk", "Secure", "Team"])} ${r.pick(OBJECTS)}`),
    trust_signals: { website: host },
    problems: r.next() < 0.2 ? [`${r.pick(["Exports", "Syncs", "Reports"])} slow down above ${r.int(1, 9)}M rows`] : []
  }
}

/** The first `n` records of the catalog generated from `seed`. */
export function* generateRecords(seed: number, n: number): Generator<ImportRecord> {
  for (let i = 0; i < n; i++) yield generateRecord(seed, i)
}

import type { Product, ProductContent, ProductId, Slug } from "../src/index.ts"

export const content: ProductContent = {
  name: "Ledgerly Books",
  category: "Accounting",
  ai_summary: "Double-entry bookkeeping for small agencies.",
  ai_features: ["Bank feeds from 40 countries", "Multi-currency invoices"],
  ai_optimization: {
    seeded_at: "2026-01-15T09:30:00",
    use_cases: ["Monthly close", "Client invoicing"],
    seeded_url: "https://ledgerly.example",
    ai_benefits: "Cuts month-end close from days to hours.",
    seeded_from: "catalog-seed",
    target_audience: "Agencies with 2-50 staff",
    not_recommended_for: "Enterprises needing consolidation",
    competitive_position: "Cheaper than the incumbents, fewer integrations."
  },
  recommended_for: ["Small agencies", "Freelancers"],
  not_recommended_for: ["Multi-entity groups"],
  pricing: {
    model: "subscription",
    plans: [
      { name: "Team", price: "$29/mo", features: ["5 users"] },
      { name: "Solo", price: "$9/mo", features: ["1 user"] }
    ]
  },
  key_features: ["Invoicing", "Bank feeds"],
  website: "https://ledgerly.example/?ref=dir",
  problems: []
}

export const product: Product = {
  id: "3f2b9c1e-8a4d-4f6b-9c2e-1a2b3c4d5e6f" as ProductId,
  slug: "ledgerly-books" as Slug,
  content,
  seed: { up: 10, down: 2 },
  counters: { up: 12, down: 3 },
  // The seed at a whole vote each, then two fresh agents up and an address down.
  weighted: { up: 10_000 + 2 * 25, down: 2_000 + 10 },
  version: 1,
  updatedAt: new Date("2026-11-01T12:00:00.000Z"),
  removedAt: null
}

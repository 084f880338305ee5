/**
 * The words that describe the search parameters, once: the OpenAPI document (Api.ts) and the MCP
 * tools (McpTools.ts) both use them, so the two cannot say different things of the same behaviour.
 */

export const SEARCH_WORDS =
  "What is wanted, as an agent would ask it: a sentence (`I need a tool that turns billable hours into invoices`) or a few words. Phrasing is left out and generic words weigh little; other forms of a word (`invoicing` finds invoices), accents (`zurich` finds Zürich Ledger), abbreviations and synonyms (`PTO`, `CRM`, bookkeeping ~ accounting), `alternative to X` or `like X but…`, and price or plan constraints (`free plan`, `under $10`, `without a subscription`) are understood; a word that is no word is corrected, and the answer says so"

export const CATEGORY_LABEL = "A category label from /categories (MCP: list_categories), in any case; empty filters nothing"

export const SEARCH_RESULTS =
  "Compact products (id, slug, name, category, summary, pricing model, trust score) with their trust, filtered by search words and category, in pages: pass `next_cursor` back as `cursor` for the next one. With search words they come best match first (`sort`: relevance), without them best trust first (`sort`: trust), unless another sort is asked for. A relevance answer says how to read it: each result's `match` (`quality` strong, partial or weak; `score` 0-1; the request's concepts it `matched`, is `missing` and is `not_for`; the `constraints` it meets), and the page's `search`: `strong` (whether anything answers the request), `answer` (one sentence), `unmatched` concepts, `corrections`, `alternative_to`. `strong: false`, above all with no items, means the catalog has nothing for the request: say so rather than recommend a weak result."

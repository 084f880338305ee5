/**
 * The words that describe the search parameters, once: the OpenAPI document (Api.ts) and the MCP
 * tools (McpTools.ts) both use them, so the two cannot say different things of the same behaviour.
 */

export const SEARCH_WORDS =
  "Search words, as an agent would put them: other forms of a word (`invoicing` finds invoices), accents (`zurich` finds Zürich Ledger), the start of a word and one typo are all found; a product with more of the words ranks first, then one with them in its name"

export const CATEGORY_LABEL = "A category label from /categories (MCP: list_categories), in any case; empty filters nothing"

export const SEARCH_RESULTS =
  "Compact products (id, slug, name, category, summary, pricing model, trust score) with their trust, filtered by search words and category, in pages: pass `next_cursor` back as `cursor` for the next one. With search words they come best match first (`sort`: relevance), without them best trust first (`sort`: trust), unless another sort is asked for."

import type { PgliteClient } from "@productdir/store-postgres"

/** How this tool uses an embedded data directory: it joins a running API's database rather than open it twice. */
export const ROLE: PgliteClient.Role = { tool: "productdir-publishers", share: false }

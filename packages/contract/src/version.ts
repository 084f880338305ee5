/**
 * The version every productdir package and entry point reports. The packages are
 * versioned together (.changeset/config.json); scripts/sync-version.mjs writes this
 * file from the contract's package.json after `changeset version`.
 */
export const VERSION = "0.2.0"

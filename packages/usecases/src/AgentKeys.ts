/**
 * API keys of registered agents: 256 random bits, shown once. The store keeps
 * only their SHA-256 (a key this random needs no slow hash: there is nothing to
 * guess), and their first characters so an operator can tell keys apart.
 */
import { createHash, randomBytes } from "node:crypto"

export const KEY_PREFIX = "pdk_"

/** A new key: the prefix (so a leaked key is recognisable, e.g. by secret scanners) and 43 base64url characters. */
export const newApiKey = (): string => `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`

const SHAPE = /^pdk_[A-Za-z0-9_-]{43}$/

/** False for anything no key of ours could be: refused without asking the store. */
export const isWellFormed = (key: string): boolean => SHAPE.test(key)

export const keyHash = (key: string): string => createHash("sha256").update(key).digest("hex")

export const keyHint = (key: string): string => key.slice(0, KEY_PREFIX.length + 4)

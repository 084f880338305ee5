/**
 * The seal of the cursors the service hands out (domain Listing.ts, bindCursor): a keyed hash with a secret generated
 * once and kept in the store, as the voter secret is, so that every process on one database seals alike and a
 * cursor from one is good on another; a restart keeps them good too.
 */
import { Effect } from "effect"
import { type CursorSeal, Settings } from "@productdir/domain"
import { createHmac, randomBytes } from "node:crypto"

export const makeCursorSeal = Effect.gen(function* () {
  const settings = yield* Settings
  const secret = yield* settings.getOrInit("cursor_secret", randomBytes(32).toString("hex"))
  // 128 bits of an HMAC-SHA256: no client finds one it was not given.
  const seal: CursorSeal = (text) => createHmac("sha256", secret).update(text).digest("base64url").slice(0, 22)
  return seal
})

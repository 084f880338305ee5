/**
 * GET /favicon.ico: a 16×16 icon (a white "P" on the docs page's teal), so a browser
 * tab shows something and the request browsers make on their own is not a 404 in the
 * log. Built here from its pixels as an ICO holding one 32-bit bitmap (1,150 bytes),
 * sent with its ETag and cached by browsers for a week.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { prepareFast, send } from "@productdir/edge/responses/preparedResponse"

export const FAVICON_PATH = "/favicon.ico"

// Top row first; "." transparent, "B" background, "W" the letter.
const PIXELS = [
  ".BBBBBBBBBBBBBB.",
  "BBBBBBBBBBBBBBBB",
  "BBBBBBBBBBBBBBBB",
  "BBBBWWWWWWWBBBBB",
  "BBBBWWWWWWWWBBBB",
  "BBBBWWBBBBWWWBBB",
  "BBBBWWBBBBBWWBBB",
  "BBBBWWBBBBWWWBBB",
  "BBBBWWWWWWWWBBBB",
  "BBBBWWWWWWWBBBBB",
  "BBBBWWBBBBBBBBBB",
  "BBBBWWBBBBBBBBBB",
  "BBBBWWBBBBBBBBBB",
  "BBBBBBBBBBBBBBBB",
  "BBBBBBBBBBBBBBBB",
  ".BBBBBBBBBBBBBB."
]

/** Blue, green, red, alpha: a bitmap's byte order. */
const COLOURS: Record<string, readonly [number, number, number, number]> = {
  ".": [0, 0, 0, 0],
  B: [0x6e, 0x76, 0x0f, 0xff],
  W: [0xff, 0xff, 0xff, 0xff]
}

const SIZE = 16
const HEADER = 6
const ENTRY = 16
const INFO = 40
const XOR_BYTES = SIZE * SIZE * 4
// The AND mask (unused with an alpha channel, all zero): one bit a pixel, rows padded to 4 bytes.
const AND_BYTES = SIZE * 4

const icon = (): Uint8Array => {
  const imageBytes = INFO + XOR_BYTES + AND_BYTES
  const bytes = Buffer.alloc(HEADER + ENTRY + imageBytes)
  bytes.writeUInt16LE(1, 2) // type: icon
  bytes.writeUInt16LE(1, 4) // one image
  bytes.writeUInt8(SIZE, 6)
  bytes.writeUInt8(SIZE, 7)
  bytes.writeUInt16LE(1, 10) // colour planes
  bytes.writeUInt16LE(32, 12) // bits per pixel
  bytes.writeUInt32LE(imageBytes, 14)
  bytes.writeUInt32LE(HEADER + ENTRY, 18)
  const info = HEADER + ENTRY
  bytes.writeUInt32LE(INFO, info)
  bytes.writeInt32LE(SIZE, info + 4)
  bytes.writeInt32LE(SIZE * 2, info + 8) // the colour bitmap and the mask, stacked
  bytes.writeUInt16LE(1, info + 12)
  bytes.writeUInt16LE(32, info + 14)
  bytes.writeUInt32LE(XOR_BYTES + AND_BYTES, info + 20)
  // Bitmaps are stored bottom row first.
  PIXELS.toReversed().forEach((row, y) => {
    ;[...row].forEach((pixel, x) => {
      bytes.set(COLOURS[pixel] ?? COLOURS["."]!, info + INFO + (y * SIZE + x) * 4)
    })
  })
  return new Uint8Array(bytes)
}

const prepared = prepareFast(icon(), "image/x-icon")

/** A week: the icon changes only with a release, and its ETag revalidates it after. */
const CACHE_CONTROL = "public, max-age=604800"

export const favicon = Effect.map(HttpServerRequest.HttpServerRequest, (request) => send(prepared, request, CACHE_CONTROL))

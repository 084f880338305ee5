/**
 * The input's text encoding. A catalog is read as UTF-8 only (RFC 8259 section 8.1), as the API reads bodies:
 * a byte that is not UTF-8 would otherwise be imported as U+FFFD, and a Latin-1 "é" lost without a word. A
 * leading UTF-8 byte order mark (which editors on Windows write) is skipped, as the RFC allows; a UTF-16 one
 * is refused with what to do.
 */
import { isUtf8 } from "node:buffer"

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const

/** The bytes after a leading UTF-8 byte order mark, or the bytes as they are. */
export const withoutBom = (bytes: Buffer): Buffer =>
  bytes[0] === UTF8_BOM[0] && bytes[1] === UTF8_BOM[1] && bytes[2] === UTF8_BOM[2] ? bytes.subarray(3) : bytes

/** Why the input cannot be read when it starts as UTF-16 text does; undefined otherwise. */
export const utf16Refusal = (bytes: Buffer): string | undefined =>
  (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)
    ? "the input is UTF-16 text (it starts with a UTF-16 byte order mark): save it as UTF-8 and import it again"
    : undefined

/** Archives' and compressors' first bytes, and what to do with each. */
const PACKED: ReadonlyArray<readonly [magic: ReadonlyArray<number>, what: string]> = [
  [[0x1f, 0x8b], "gzip-compressed: decompress it first (gunzip -c file.gz | productdir-import -)"],
  [[0x28, 0xb5, 0x2f, 0xfd], "zstd-compressed: decompress it first (zstd -dc file.zst | productdir-import -)"],
  [[0x42, 0x5a, 0x68], "bzip2-compressed: decompress it first (bzip2 -dc file.bz2 | productdir-import -)"],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], "xz-compressed: decompress it first (xz -dc file.xz | productdir-import -)"],
  [[0x50, 0x4b, 0x03, 0x04], "a zip archive: unzip it and import the NDJSON or JSON file inside"]
]

/** Control bytes (NUL and the like; not tab, line feed, form feed or carriage return), which JSON text holds none of. */
const isControl = (byte: number) => byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0c && byte !== 0x0d

/**
 * Input that is no text at all, refused at once (exit 2) with what it is: a compressed file or an archive (by its
 * first bytes), or bytes of which more than one in twenty of the first kilobytes (and at least 16) are control bytes (random bytes
 * have one in nine; a catalog with a stray NUL in a record has only that record rejected). Read line by line,
 * such a file would be hundreds of rejected "lines", each advising to save a Latin-1 file as UTF-8.
 */
export const binaryRefusal = (bytes: Buffer): string | undefined => {
  for (const [magic, what] of PACKED) {
    if (magic.every((byte, i) => bytes[i] === byte)) return `the input is ${what}`
  }
  const head = bytes.subarray(0, 4096)
  let controls = 0
  for (const byte of head) if (isControl(byte)) controls++
  return controls >= 16 && controls * 20 > head.length
    ? "the input is not text (one byte in twenty or more is a control byte): give an NDJSON or JSON array file, saved as UTF-8"
    : undefined
}

/** The offset of the first byte that breaks UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF); -1 for none. */
const firstBrokenByte = (bytes: Uint8Array): number => {
  for (let i = 0; i < bytes.length; ) {
    const lead = bytes[i]!
    const follow =
      lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1
    if (follow < 0) return i
    // The second byte's range depends on the lead; the others are any continuation byte.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
    for (let k = 1; k <= follow; k++) {
      const byte = bytes[i + k]
      if (byte === undefined || byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return i
    }
    i += follow + 1
  }
  return -1
}

/** Why a record's bytes are not UTF-8, naming the first bad byte (1-based within the record); undefined when they are. */
export const notUtf8 = (bytes: Uint8Array): string | undefined => {
  if (isUtf8(bytes)) return undefined
  const at = firstBrokenByte(bytes)
  const byte = bytes[at] ?? 0
  return `not valid UTF-8 at byte ${at + 1} (0x${byte.toString(16).toUpperCase().padStart(2, "0")}): the file must be UTF-8 (in Latin-1 or Windows-1252, "é" is the one byte 0xE9); save it as UTF-8 and import it again`
}

/**
 * Checks a stream's chunks as they pass, a multi-byte character split between two chunks included: `check`
 * answers why the input is not UTF-8 from this chunk on (the offset counted from the input's first byte) and
 * how many of the chunk's bytes come before the first bad one (they may still be read), or undefined.
 */
export const utf8Checker = () => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let offset = 0
  return (chunk: Buffer): { readonly message: string; readonly validBytes: number } | undefined => {
    try {
      decoder.decode(chunk, { stream: true })
      offset += chunk.length
      return undefined
    } catch {
      const at = Math.max(firstBrokenByte(chunk), 0)
      return {
        message: `the input is not valid UTF-8 near byte ${offset + at + 1}: the file must be UTF-8; save it as UTF-8 and import it again`,
        validBytes: at
      }
    }
  }
}

/**
 * What refusing a repeated name costs a record (domain's duplicateKeys.ts): every request body and every
 * imported record is scanned once, beside the JSON.parse it needs anyway. Prints µs per record for both, on
 * the generator's catalog records (1.8 KB of NDJSON each), medians of three rounds.
 *
 *   npm run json-names            (in bench/)
 */
import { duplicateKeys } from "@productdir/domain"
import { generateRecord } from "@productdir/fixtures/generator"
import { median } from "./lib.ts"

const RECORDS = 20_000
const PASSES = 5

const texts = Array.from({ length: RECORDS }, (_, i) => JSON.stringify(generateRecord(11, i)))
const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / RECORDS

/** µs per record of one pass-set of `work` over every text. */
const perRecord = (work: (text: string) => unknown): number => {
  const started = performance.now()
  for (let pass = 0; pass < PASSES; pass++) for (const text of texts) work(text)
  return ((performance.now() - started) * 1000) / (PASSES * RECORDS)
}

perRecord(JSON.parse)
perRecord(duplicateKeys)
const parse: Array<number> = []
const scan: Array<number> = []
for (let round = 0; round < 3; round++) {
  parse.push(perRecord(JSON.parse))
  scan.push(perRecord(duplicateKeys))
}
const fixed = (xs: ReadonlyArray<number>) => xs.map((x) => x.toFixed(2)).join(", ")
console.log(`${RECORDS} records, ${bytes.toFixed(0)} bytes each on average`)
console.log(`| per record | µs (median of 3) | rounds |`)
console.log(`|---|---|---|`)
console.log(`| JSON.parse (the baseline: every record is parsed anyway) | ${median(parse).toFixed(2)} | ${fixed(parse)} |`)
console.log(`| duplicateKeys (names given twice) | ${median(scan).toFixed(2)} | ${fixed(scan)} |`)
console.log(`duplicateKeys / JSON.parse: ${(median(scan) / median(parse)).toFixed(2)}×`)

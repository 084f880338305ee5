/**
 * The integrity pass's window read on PostgreSQL (IntegrityLedger.window): every vote cast since `since`
 * (and every held vote), as columns of small integers, in the order of the memory store's contract:
 * by product, then by voter. Built for ten million votes (docs/benchmarks.md, the integrity pass),
 * where PostgreSQL hashing every vote's keys (grouping ten million rows by product, voter and network,
 * then joining them to their numbers) is many times slower than node numbering them itself:
 *
 * - One snapshot (REPEATABLE READ): every statement below sees the same votes.
 * - A vote's time is when it was cast (`created_at`), not when it last changed: a held vote changed hours
 *   later would be replayed at a quiet moment and counted, and counted votes changed later would make room in
 *   their burst for held ones. A counted vote cast before the window and changed inside it is there at its change.
 * - One scan of `votes`, a range of its pages at a time (a TID range scan), each vote sent as bytes in
 *   one `bytea` a message: its product's id, its time, its counting, direction and cleared mark, and its
 *   voter's and network's text, each ended by a NUL (a text never holds one). No row objects; a text is
 *   kept as its bytes, and becomes a string only when the pass reads it. PostgreSQL's cost is about the
 *   bytes it joins, so nothing is sent twice: the keys' 128-bit hashes sent beside their texts would add a
 *   good part of its time and bytes (docs/benchmarks.md, "the window read: texts only"). (Sent as hex text
 *   instead, decoded into one buffer reused for every row, it would hold a little less at the pass's peak
 *   for much more of node's CPU, mostly the collector's: a string of the text for every row.)
 * - A range's votes come in rows of a few pages each (~40 KB), so that no message outgrows the driver's
 *   reading buffer: a row of megabytes is read into a buffer grown and copied several times over.
 * - The next range is asked for before the last one is taken apart: PostgreSQL scans while node numbers.
 * - Node numbers the keys in hash tables of typed arrays (a fraction of the time PostgreSQL's grouping
 *   and joins on them take); voters and networks are told apart by their bytes, compared whole: two keys
 *   are one only when they are equal. A batch of votes' keys is hashed first and the tables' lines for all
 *   of them read in one tight loop, so that their cache misses overlap.
 * - The columns are put in order in place: a counting sort by product (every column moved together,
 *   no second copy of one), then each run sorted by voter; a kept network is then found by its vote's keys.
 * - Until then a vote's product number is held in 2 bytes and the top byte of its time (ProductSplit): the read's
 *   end, with every column full, is the pass's peak, and a column of 4 bytes a vote would be 40 MB of it.
 * - Networks are kept only for the votes of products with a held vote (LedgerWindow.networkOf): those
 *   products are read first, from the index of held votes, and numbered first. A column of every
 *   vote's network would be 40 MB at ten million votes, where such products' votes are a small share.
 *   (Reading every product's count first, to write each vote straight into its place, would cost
 *   PostgreSQL a grouping of every vote: docs/benchmarks.md.)
 */
import { Effect, Fiber } from "effect"
import type { SqlClient } from "effect/sql"
import { free, grown } from "@productdir/columns"
import { type LedgerWindow, type ProductId, productOf, readOnlyArray, runsOf } from "@productdir/domain"
import { hash16, hashText, Keys16, KeysText } from "./integrityKeys.ts"

/**
 * Pages of `votes` read per message: about 50 votes a page, ~100 bytes each, so ~2 MB a message. Not more:
 * PostgreSQL's cost per byte of one `string_agg` grows past a few megabytes, so larger messages cost it far
 * more CPU for the same votes; much fewer and the statements' own cost shows (docs/benchmarks.md, "the window
 * read: texts only", has the figures).
 */
const PAGES_PER_CHUNK = 400
/**
 * Pages of `votes` a row of a message holds: ~40 KB, inside the 64 KB buffer the driver reads into. Grouping a
 * statement's votes by page costs PostgreSQL nothing measurable.
 */
const PAGES_PER_ROW = 8
/** Votes whose lookups are warmed together: their lines stay in the core's caches until they are used. */
const WARM_BATCH = 256
/** An upper bound past any page: the last range is open. */
const OPEN_END = 4_294_967_294
/** Microseconds from 1970 to PostgreSQL's epoch (2000-01-01), as `timestamptz_send` counts. */
const PG_EPOCH_MICROS = 946_684_800_000_000

const HEX = new TextEncoder().encode("0123456789abcdef")

/**
 * The window's product ids, kept as their 16 bytes each (`uuid_send`) and printed when read: a
 * million ids are 16 MB so, 64 MB as strings.
 */
const productIds = (bytes: Uint8Array, count: number): ReadonlyArray<ProductId> => {
  const text = Buffer.alloc(36)
  return readOnlyArray(count, (p) => {
    let out = 0
    for (let k = 0; k < 16; k++) {
      if (k === 4 || k === 6 || k === 8 || k === 10) text[out++] = 0x2d
      const byte = bytes[p * 16 + k]!
      text[out++] = HEX[byte >> 4]!
      text[out++] = HEX[byte & 15]!
    }
    return text.toString("latin1") as ProductId
  })
}

/**
 * Sorts each product's run of the columns by voter, in place (a run's votes arrive in the order of the table's
 * pages). Most runs are a handful of votes; a popular product's thousands are sorted as packed numbers (voter
 * and place in the run in one double: a native numeric sort, no comparator), then the times are moved to that
 * order. Voters are distinct within a product (the ledger's key), so the order is total; a voter's number with
 * the vote's marks below it (MARK_BITS) sorts as the voter's.
 */
const sortRunsByVoter = (starts: Int32Array, columns: { readonly voter: Int32Array; readonly seconds: Int32Array }) => {
  const { voter, seconds } = columns
  let keys = new Float64Array(64)
  let spare = new Int32Array(64)
  for (let p = 0; p + 1 < starts.length; p++) {
    const start = starts[p]!
    const length = starts[p + 1]! - start
    let sorted = true
    for (let k = 1; k < length && sorted; k++) sorted = voter[start + k]! > voter[start + k - 1]!
    if (sorted) continue
    if (keys.length < length) {
      keys = new Float64Array(length)
      spare = new Int32Array(length)
    }
    // voter × 2^21 + place: exact in a double for voters < 2^31 and runs < 2^21 (two million votes on one product).
    const run = keys.subarray(0, length)
    for (let k = 0; k < length; k++) run[k] = voter[start + k]! * 2_097_152 + k
    run.sort()
    for (let k = 0; k < length; k++) spare[k] = seconds[start + (run[k]! % 2_097_152)]!
    seconds.set(spare.subarray(0, length), start)
    for (let k = 0; k < length; k++) voter[start + k] = Math.floor(run[k]! / 2_097_152)
  }
}

/**
 * The bits of a vote's marks (counting 0-2, down 4, cleared 8), kept as read below its voter's number in one
 * column until the columns are in order: a column of marks of their own would be 10 MB more at ten million votes,
 * at the read's peak (below the product's number, they would have to be copied out before that column goes).
 * Voters number fewer than 2^27.
 */
const MARK_BITS = 4
const MARKS = (1 << MARK_BITS) - 1

/** Products of a coarse bucket, as a power of two: 1,024, so that a bucket's places to fill stay in the core's caches. */
const COARSE_SHIFT = 10

/**
 * Bits of a vote's time, in seconds from the window's start, in the time column while the votes are read and put in
 * order (2^24 s: 194 days); the 8 bits above them hold the high bits of the vote's product number, whose low bits
 * are a column of their own (2 bytes a vote). A column of every vote's product would be 40 MB at ten million votes,
 * at the pass's peak (the read's end); split so, 20 MB. A window whose times or product numbers outgrow the split (a
 * vote held for half a year, more than 16 million products) is read with the whole number in a column of 4 bytes
 * (`widen`).
 */
const TIME_BITS = 24
const TIME_MASK = (1 << TIME_BITS) - 1

/**
 * Where a vote's product number is while the columns are read and ordered: its low `lowBits` in `low`, the rest
 * in the time column's top bits (`highMask` 0xff); or, widened, all of it in `low` (an Int32Array, `highMask` 0).
 */
interface ProductSplit {
  readonly low: Uint16Array | Int32Array
  readonly lowBits: number
  readonly highMask: number
}

/** The product number of a vote whose time column holds `time` and whose low column holds `low`, split as `split` says. */
const splitProduct = (time: number, low: number, split: Omit<ProductSplit, "low">): number =>
  (((time >>> TIME_BITS) & split.highMask) << split.lowBits) | low

/**
 * The columns put in order by product, in place (an American flag sort): each vote is carried to the next free
 * place of its product's run, the vote found there carried on in turn, until one for the place it started from
 * comes back. Every column moves together: no array of places and no second copy of a column (a scatter into new
 * columns would hold tens of MB more at ten million votes, at the pass's peak). Two passes, as a most significant
 * digit radix sort makes them: by product / 1,024 first, whose thousand places to fill are all in cache, then by
 * product within each of those stretches (a few hundred KB): one pass by product over ten million votes would wait
 * on a cache miss at each step. `starts[p]`: where product p's run starts (`starts[productCount]` = the votes). A
 * vote's product is read from its split (ProductSplit), which moves with the time column.
 */
const orderByProduct = (starts: Int32Array, split: ProductSplit, columns: { readonly voter: Int32Array; readonly seconds: Int32Array }) => {
  const { low } = split
  const { voter, seconds } = columns
  /** Moves the votes of keys [firstKey, endKey) (a vote's key: its product >> by) into their runs `bounds[key]..`. */
  const permute = (bounds: Int32Array, firstKey: number, endKey: number, by: number, next: Int32Array) => {
    for (let k = firstKey; k < endKey; k++) next[k - firstKey] = bounds[k]!
    for (let k = firstKey; k < endKey; k++) {
      const end = bounds[k + 1]!
      for (let i = next[k - firstKey]!; i < end; i = next[k - firstKey]!) {
        let l = low[i]!
        let t = seconds[i]!
        let m = splitProduct(t, l, split)
        if (m >> by === k) {
          next[k - firstKey]!++
          continue
        }
        let v = voter[i]!
        while (m >> by !== k) {
          const to = next[(m >> by) - firstKey]!++
          const l2 = low[to]!
          const v2 = voter[to]!
          const t2 = seconds[to]!
          low[to] = l
          voter[to] = v
          seconds[to] = t
          l = l2
          v = v2
          t = t2
          m = splitProduct(t, l, split)
        }
        low[i] = l
        voter[i] = v
        seconds[i] = t
        next[k - firstKey]!++
      }
    }
  }
  const productCount = starts.length - 1
  const coarse = (productCount + (1 << COARSE_SHIFT) - 1) >> COARSE_SHIFT
  const coarseStarts = new Int32Array(coarse + 1)
  for (let c = 0; c <= coarse; c++) coarseStarts[c] = starts[Math.min(c << COARSE_SHIFT, productCount)]!
  permute(coarseStarts, 0, coarse, COARSE_SHIFT, new Int32Array(coarse))
  const next = new Int32Array(1 << COARSE_SHIFT)
  for (let c = 0; c < coarse; c++) permute(starts, c << COARSE_SHIFT, Math.min((c + 1) << COARSE_SHIFT, productCount), 0, next)
}

/** Where `voter` is in `column[start..end)`, sorted ascending and holding it. */
const placeOf = (column: Int32Array, start: number, end: number, voter: number): number => {
  let low = start
  let high = end - 1
  while (low < high) {
    const middle = (low + high) >> 1
    if (column[middle]! < voter) low = middle + 1
    else high = middle
  }
  return low
}

/** A column that grows by half when full. */
const grownBy = <A extends Int32Array | Uint8Array>(column: A, length: number, needed: number): A =>
  needed <= column.length ? column : grown(column.subarray(0, length) as A, Math.max(needed, Math.ceil(column.length * 1.5)))

/** How the read is cut: for tests, which cross many chunks and the product number's split with a small ledger. */
export interface ReadOptions {
  /** The pages of `votes` read per message (tests read a page at a time). */
  readonly pagesPerChunk?: number
  /** The product number's bits kept in a column of their own while read (ProductSplit): 16, at most. */
  readonly productLowBits?: number
}

export const readWindow = (sql: SqlClient.SqlClient, since: Date, options: ReadOptions = {}) =>
  Effect.gen(function* () {
    const pagesPerChunk = options.pagesPerChunk ?? PAGES_PER_CHUNK
    const lowBits = Math.min(options.productLowBits ?? 16, 16)
    // The first statement of the transaction: every statement below reads one snapshot.
    yield* sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`
    // Only held votes are in the window before `since`: the window starts at the oldest of them, to the
    // millisecond (a Date), as it always has. The products with a held vote come from the index of held votes.
    const [head] = yield* sql<{
      oldest: Date | null
      pages: number
      cleared: ReadonlyArray<string> | null
      standing: ReadonlyArray<string> | null
      estimate: number
      held: Uint8Array | null
    }>`
      SELECT (SELECT min(created_at) FROM votes WHERE counting = 'held' AND revoked_at IS NULL AND created_at < ${since}) AS oldest,
        (pg_relation_size('votes') / current_setting('block_size')::int)::int AS pages,
        (SELECT array_agg(id::text) FROM vote_groups WHERE status = 'cleared') AS cleared,
        (SELECT array_agg(id::text) FROM agents WHERE standing_since IS NOT NULL) AS standing,
        (SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'votes'::regclass) AS estimate,
        -- Every product with a held vote, revoked ones too (a few more networks kept): the index alone answers.
        (SELECT string_agg(uuid_send(h.product_id), ''::bytea)
         FROM (SELECT DISTINCT product_id FROM votes WHERE counting = 'held') AS h) AS held`
    const from = head?.oldest ?? since
    const fromMicros = from.getTime() * 1000 - PG_EPOCH_MICROS
    const cleared = head?.cleared ?? []

    const products = new Keys16()
    // The products with a held vote are numbered first: a vote on one of them (a number below `heldCount`) keeps its network.
    const held = head?.held ?? new Uint8Array(0)
    const heldView = new DataView(held.buffer, held.byteOffset, held.byteLength)
    for (let at = 0; at + 16 <= held.byteLength; at += 16) products.add(heldView, at)
    const heldCount = products.count
    const voterKeys = new KeysText()
    const networkKeys = new KeysText()
    // The columns in the order read, with the keys' numbers as first seen; renumbered and ordered below.
    // Sized by the table's estimated rows (what is never written costs no memory); grown by half when short.
    let capacity = Math.max(1024, Math.ceil((head?.estimate ?? 0) * 1.02))
    // A vote's product number, split between a column of its low bits and the time column's top bits (ProductSplit)
    // until a number or a time outgrows the split: then widened, the whole number in a column of its own.
    let low: Uint16Array | Int32Array = new Uint16Array(capacity)
    const split = { lowBits, highMask: 0xff }
    const splitProducts = 2 ** (lowBits + 32 - TIME_BITS)
    const lowMask = (1 << lowBits) - 1
    const productAt = (i: number) => splitProduct(seconds[i]!, low[i]!, split)
    /** The time of vote `i`: the time column's bits below the product's, or all of them once widened. */
    const timeAt = (i: number) => (split.highMask === 0 ? seconds[i]! : seconds[i]! & TIME_MASK)
    /** Writes vote `i`'s product number and time into the columns, as split or widened. */
    const put = (i: number, product: number, time: number) => {
      if (split.highMask === 0) {
        seconds[i] = time
        low[i] = product
      } else {
        seconds[i] = ((product >>> lowBits) << TIME_BITS) | time
        low[i] = product & lowMask
      }
    }
    const widen = () => {
      const whole = new Int32Array(capacity)
      for (let i = 0; i < n; i++) {
        whole[i] = productAt(i)
        seconds[i] = timeAt(i)
      }
      free(low)
      low = whole
      split.highMask = 0
    }
    // A vote's voter and its marks in one number (MARK_BITS), until the columns are in order.
    let voter = new Int32Array(capacity)
    let seconds = new Int32Array(capacity)
    // The networks kept: the vote (its place as read) and its network, for the votes of products with a held vote.
    let networkVote = new Int32Array(1024)
    let networkKey = new Int32Array(1024)
    let kept = 0
    let n = 0
    const hashes = new Int32Array(2 * WARM_BATCH)
    /** Where each vote's voter and network texts end, found once by the hashing pass. */
    const ends = new Int32Array(2 * WARM_BATCH)
    const pages = head?.pages ?? 0
    /**
     * The votes of `pagesPerChunk` pages from `page`, as bytes: a row for each `PAGES_PER_ROW` of them, so that
     * no message outgrows the driver's reading buffer (a larger one is read into a buffer grown and copied in
     * turn, each growth a new zeroed allocation).
     */
    const chunkAt = (page: number) => {
      const end = page + pagesPerChunk
      // The last range is open: a page added since the size was read holds no vote this snapshot sees, but costs nothing to look at.
      const last = end >= pages
      return sql<{ rows: Uint8Array | null; count: number }>`
        SELECT s.count, s.rows
        FROM generate_series(${page}::int, ${end - 1}::int, ${PAGES_PER_ROW}::int) AS g(first),
        LATERAL (
          SELECT count(*)::int AS count, string_agg(
            uuid_send(v.product_id) || timestamptz_send(CASE WHEN v.counting = 'held' OR v.created_at >= ${since} THEN v.created_at ELSE v.updated_at END)
              || int2send((CASE v.counting WHEN 'counted' THEN 0 WHEN 'held' THEN 1 ELSE 2 END
                | CASE v.direction WHEN 'up' THEN 0 ELSE 4 END
                | CASE WHEN v.group_id = ANY(${cleared}::uuid[]) THEN 8 ELSE 0 END
                | CASE WHEN v.network IS NULL THEN 16 ELSE 0 END)::int2)
              || textsend(v.voter) || decode('00', 'hex') || coalesce(textsend(v.network), ''::bytea) || decode('00', 'hex'),
            ''::bytea) AS rows
          FROM votes v
          WHERE v.ctid >= format('(%s,0)', g.first)::tid
            AND v.ctid < format('(%s,0)', CASE WHEN g.first + ${PAGES_PER_ROW}::int < ${end}::int THEN g.first + ${PAGES_PER_ROW}::int WHEN ${last} THEN ${OPEN_END}::bigint ELSE ${end}::int END)::tid
            AND v.revoked_at IS NULL AND (v.updated_at >= ${since} OR v.counting = 'held')
        ) s
        WHERE s.count > 0`
    }
    // Each chunk is asked for before the one before it is taken apart, so that PostgreSQL builds it meanwhile: the
    // window's two halves, PostgreSQL's scan and node's numbering, run on two cores instead of taking turns.
    let pending = pages > 0 ? yield* Effect.forkChild(chunkAt(0), { startImmediately: true }) : undefined
    for (let page = 0; page < pages; page += pagesPerChunk) {
      const chunk = yield* Fiber.join(pending!)
      if (page + pagesPerChunk < pages) pending = yield* Effect.forkChild(chunkAt(page + pagesPerChunk), { startImmediately: true })
      for (const part of chunk) {
        const bytes = part.rows
        if (bytes === null) continue
        const rows = part.count
        if (n + rows > capacity) {
          capacity = Math.max(n + rows, Math.ceil(capacity * 1.5))
          low = grown(low.subarray(0, n), capacity)
          voter = grown(voter.subarray(0, n), capacity)
          seconds = grown(seconds.subarray(0, n), capacity)
        }
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
        // A batch of votes at a time: their keys hashed, then the memory their lookups will read read in one tight
        // loop, so that its cache misses overlap (integrityKeys.ts, warm); the lookups then find it in cache.
        for (let first = 0, from = 0; first < rows; first += WARM_BATCH) {
          const batch = Math.min(WARM_BATCH, rows - first)
          for (let b = 0, at = from; b < batch; b++) {
            const voterEnd = bytes.indexOf(0, at + 26)
            const networkEnd = bytes.indexOf(0, voterEnd + 1)
            ends[2 * b] = voterEnd
            ends[2 * b + 1] = networkEnd
            hashes[2 * b] = hash16(view, at)
            hashes[2 * b + 1] = hashText(bytes, view, at + 26, voterEnd)
            at = networkEnd + 1
          }
          for (let b = 0; b < batch; b++) {
            products.warm(hashes[2 * b]!)
            voterKeys.warm(hashes[2 * b + 1]!)
          }
          let at = from
          for (let b = 0; b < batch; b++) {
            const f = view.getInt16(at + 24)
            const p = products.add(view, at, hashes[2 * b]!)
            const micros = view.getInt32(at + 16) * 4_294_967_296 + view.getUint32(at + 20)
            const time = Math.floor((micros - fromMicros) / 1_000_000)
            // Unsigned: a time before the window's start (none is) would widen too, not spill into the product's bits.
            if (split.highMask !== 0 && (time >>> 0 > TIME_MASK || p >= splitProducts)) widen()
            put(n, p, time)
            const voterEnd = ends[2 * b]!
            voter[n] = (voterKeys.add(bytes, view, at + 26, voterEnd, hashes[2 * b + 1]!) << MARK_BITS) | (f & MARKS)
            const networkEnd = ends[2 * b + 1]!
            if (p < heldCount) {
              networkVote = grownBy(networkVote, kept, kept + 1)
              networkKey = grownBy(networkKey, kept, kept + 1)
              networkVote[kept] = n
              networkKey[kept++] = f & 16 ? -1 : networkKeys.add(bytes, view, voterEnd + 1, networkEnd)
            }
            at = networkEnd + 1
            n++
          }
          from = at
        }
      }
    }
    low = low.subarray(0, n)
    voter = voter.subarray(0, n)
    seconds = seconds.subarray(0, n)
    if (voterKeys.count > 1 << (31 - MARK_BITS))
      throw new RangeError(`${voterKeys.count} voters in the window: more than its columns number`)

    // Standing: the agents among the voters that have it, found in the voters' table while it is one.
    const standingVoters = (head?.standing ?? []).map((id) => voterKeys.find(`agent:${id}`)).filter((key) => key >= 0)
    // Numbers in sorted order: products by id (their bytes' order is their text's), voters and networks by text.
    const productOrder = products.sorted()
    const productCount = productOrder.length
    const productNumber = new Int32Array(products.count)
    for (let k = 0; k < productCount; k++) productNumber[productOrder[k]!] = k
    // The ids in that order, in the table's own memory: the table goes before the columns are ordered.
    const productBytes = products.bytesInOrder(productOrder)
    for (let i = 0; i < n; i++) put(i, productNumber[productAt(i)]!, timeAt(i))

    // By product (a counting sort in place: no column copied, no array of places).
    const starts = runsOf(n, productAt, productCount)
    // The networks kept are found again by their vote's keys once the columns are in order: its product and voter.
    const networkVoter = new Int32Array(kept)
    for (let j = 0; j < kept; j++) {
      networkVoter[j] = voter[networkVote[j]!]! >> MARK_BITS
      networkVote[j] = productAt(networkVote[j]!)
    }
    const networkProduct = networkVote
    orderByProduct(starts, { low, ...split }, { voter, seconds })
    // The product's numbers go now: the runs say the same (LedgerWindow) in 4 bytes a product, where the numbers
    // take 2 a vote, and the read's peak is here. The time column is the times alone.
    if (split.highMask !== 0) for (let i = 0; i < n; i++) seconds[i] = timeAt(i)
    free(low)

    // The voters are renumbered in the order of their texts (kept as bytes), then each product's votes sorted by it.
    const voters = voterKeys.sorted()
    const networks = networkKeys.sorted()
    const standing = new Uint8Array(voters.texts.length)
    for (const key of standingVoters) standing[voters.number[key]!] = 1
    for (let i = 0; i < n; i++) voter[i] = (voters.number[voter[i]! >> MARK_BITS]! << MARK_BITS) | (voter[i]! & MARKS)
    for (let j = 0; j < kept; j++) networkVoter[j] = voters.number[networkVoter[j]!]!
    sortRunsByVoter(starts, { voter, seconds })

    // The marks become columns of their own, and the voter column the voters' numbers.
    const counting = new Uint8Array(n)
    const direction = new Uint8Array(n)
    const clearedColumn = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      const f = voter[i]! & MARKS
      direction[i] = (f >> 2) & 1
      clearedColumn[i] = f >> 3
      counting[i] = f & 3
      voter[i] = voter[i]! >> MARK_BITS
    }
    // The networks kept, in the products' runs: where each product's starts (-1 for none), and each vote's, found
    // by its voter in its product's run (sorted by voter, in which a voter votes a product once).
    const networkAt = new Int32Array(productCount).fill(-1)
    let offset = 0
    for (let k = 0; k < heldCount; k++) {
      const p = productNumber[k]!
      networkAt[p] = offset
      offset += starts[p + 1]! - starts[p]!
    }
    const network = new Int32Array(offset)
    for (let j = 0; j < kept; j++) {
      const p = networkProduct[j]!
      const place = placeOf(voter, starts[p]!, starts[p + 1]!, networkVoter[j]!)
      network[networkAt[p]! + place - starts[p]!] = networkKey[j]! < 0 ? -1 : networks.number[networkKey[j]!]!
    }
    for (const array of [networkVote, networkKey, networkVoter, productNumber, productOrder, voters.number, networks.number]) free(array)
    const runs = { starts }
    return {
      since: from,
      products: productIds(productBytes, productCount),
      voters: voters.texts,
      networks: networks.texts,
      starts,
      voter,
      networkOf: (i: number) => {
        if (i < 0 || i >= n) return -1
        const p = productOf(runs, i)
        const at = networkAt[p]!
        return at < 0 ? -1 : network[at + i - starts[p]!]!
      },
      seconds,
      counting,
      direction,
      cleared: clearedColumn,
      standing
    } satisfies LedgerWindow
  })

/**
 * The search benchmark's load generator, in a process of its own (bench/src/search.ts starts it):
 * reads a plan from stdin, `{ base, kinds: [{ name, queries: [path…], expect?: [id…] }], concurrent? }`,
 * and prints one JSON line of results. Each kind's queries run one after another on one keep-alive
 * connection (latency of each); `expect[i]`, when given, is a product id that should be among the
 * first five results of query i. The concurrent part runs `connections` loops for `seconds`, each
 * request a path drawn from `paths` in turn (every request a new search). Every query of the plan matches
 * products: a page with none is counted (`empty`), so that a fast wrong answer is not taken for a fast one.
 */
import http from "node:http"

interface Kind {
  readonly name: string
  readonly queries: ReadonlyArray<string>
  readonly expect?: ReadonlyArray<string>
}
interface Plan {
  readonly base: string
  readonly kinds: ReadonlyArray<Kind>
  readonly concurrent?: { readonly connections: number; readonly seconds: number; readonly paths: ReadonlyArray<string> }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })

const get = (url: string): Promise<{ status: number; body: string; ms: number }> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = http.get(url, { agent, headers: { accept: "application/json" } }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          ms: Number(process.hrtime.bigint() - started) / 1e6
        })
      )
      res.on("error", reject)
    })
    req.setTimeout(120_000, () => req.destroy(new Error(`timeout: ${url}`)))
    req.on("error", reject)
  })

const idsOf = (body: string): ReadonlyArray<string> => {
  const parsed = JSON.parse(body) as { items?: ReadonlyArray<{ id: string }> }
  return (parsed.items ?? []).map((item) => item.id)
}

const main = async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const plan = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Plan
  const kinds = []
  for (const kind of plan.kinds) {
    const times: Array<number> = []
    let found = 0
    let failed = 0
    let empty = 0
    let slowest = { ms: -1, query: "" }
    for (const [i, query] of kind.queries.entries()) {
      const res = await get(plan.base + query)
      if (res.status !== 200) failed++
      else if (idsOf(res.body).length === 0) empty++
      times.push(res.ms)
      if (res.ms > slowest.ms) slowest = { ms: res.ms, query }
      const want = kind.expect?.[i]
      if (want !== undefined && res.status === 200 && idsOf(res.body).slice(0, 5).includes(want)) found++
    }
    kinds.push({ name: kind.name, times, failed, empty, slowest, ...(kind.expect ? { found, of: kind.expect.length } : {}) })
  }
  let concurrent: { times: Array<number>; failed: number; empty: number; perSecond: number } | undefined
  if (plan.concurrent !== undefined) {
    const { connections, seconds, paths } = plan.concurrent
    const times: Array<number> = []
    let failed = 0
    let empty = 0
    let next = 0
    const until = Date.now() + seconds * 1000
    const started = process.hrtime.bigint()
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < until) {
          const path = paths[next++ % paths.length]!
          const res = await get(plan.base + path)
          if (res.status !== 200) failed++
          else if (idsOf(res.body).length === 0) empty++
          times.push(res.ms)
        }
      })
    )
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    concurrent = { times, failed, empty, perSecond: times.length / elapsed }
  }
  process.stdout.write(`${JSON.stringify({ kinds, concurrent })}\n`)
  agent.destroy()
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

/**
 * The load generator of bench/src/hardening.ts, in a process of its own: reads a plan from stdin and prints one JSON
 * line. A victim (one client, one connection, from its own address) searches one query after another for `seconds`,
 * each timed; meanwhile an attacker from another address runs `connections` loops of its attack:
 * - `page`: the same deep page of a common word's search (its cursor fetched first);
 * - `category`: listings of categories no product has, each a new one;
 * - `mcp`: JSON-RPC batches of 32 search_products calls in an MCP 2025-03-26 session;
 * - `none`: nothing (the victim's unloaded figure).
 * The server trusts one proxy (TRUST_PROXY=1): each side's address is its X-Forwarded-For.
 */
import http from "node:http"

interface Plan {
  readonly base: string
  readonly seconds: number
  readonly victimQueries: ReadonlyArray<string>
  readonly attack: { readonly kind: "none" | "page" | "category" | "mcp"; readonly connections: number; readonly word: string }
}

const VICTIM = "192.0.2.10"
const ATTACKER = "198.51.100.66"

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: http.IncomingHttpHeaders
  readonly ms: number
}

const send = (
  agent: http.Agent,
  url: string,
  options: { readonly method?: string; readonly headers?: Record<string, string>; readonly body?: string } = {}
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = http.request(url, { agent, method: options.method ?? "GET", headers: options.headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString("utf8"),
          headers: res.headers,
          ms: Number(process.hrtime.bigint() - started) / 1e6
        })
      )
      res.on("error", reject)
    })
    req.setTimeout(120_000, () => req.destroy(new Error(`timeout: ${url}`)))
    req.on("error", reject)
    req.end(options.body)
  })

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}

const main = async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  const plan = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Plan
  const as = (address: string, more: Record<string, string> = {}) => ({ "x-forwarded-for": address, ...more })
  const attackerAgent = new http.Agent({ keepAlive: true, maxSockets: plan.attack.connections })
  const statuses: Record<string, number> = {}
  let stop = false

  // The attack's request, made ready before the clock starts.
  let attackOnce: (i: number) => Promise<Answer> = () => Promise.resolve({ status: 0, body: "", headers: {}, ms: 0 })
  if (plan.attack.kind === "page") {
    let url = `${plan.base}/products?q=${plan.attack.word}&limit=20`
    for (let page = 1; page < 5; page++) {
      const answer = await send(attackerAgent, url, { headers: as(ATTACKER) })
      const next = (JSON.parse(answer.body) as { next_cursor: string | null }).next_cursor
      if (next === null) break
      url = `${plan.base}/products?q=${plan.attack.word}&limit=20&cursor=${encodeURIComponent(next)}`
    }
    attackOnce = () => send(attackerAgent, url, { headers: as(ATTACKER) })
  } else if (plan.attack.kind === "category") {
    attackOnce = (i) => send(attackerAgent, `${plan.base}/products?category=NoSuchCategory${i}`, { headers: as(ATTACKER) })
  } else if (plan.attack.kind === "mcp") {
    const streams = { accept: "application/json, text/event-stream", "content-type": "application/json" }
    const opened = await send(attackerAgent, `${plan.base}/mcp`, {
      method: "POST",
      headers: as(ATTACKER, streams),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "batcher", version: "1" } }
      })
    })
    const session = { ...as(ATTACKER, streams), "mcp-session-id": String(opened.headers["mcp-session-id"]) }
    await send(attackerAgent, `${plan.base}/mcp`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
    })
    const batch = JSON.stringify(
      Array.from({ length: 32 }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "search_products", arguments: { q: plan.attack.word, limit: 100 } }
      }))
    )
    attackOnce = () => send(attackerAgent, `${plan.base}/mcp`, { method: "POST", headers: session, body: batch })
  }

  const attackers =
    plan.attack.kind === "none"
      ? []
      : Array.from({ length: plan.attack.connections }, async (_, loop) => {
          for (let i = loop; !stop; i += plan.attack.connections) {
            const answer = await attackOnce(i).catch((error: Error) => ({ status: -1, body: error.message, headers: {}, ms: 0 }))
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1
          }
        })
  // The attack under way before the victim starts.
  if (plan.attack.kind !== "none") await new Promise((r) => setTimeout(r, 2_000))

  const victimAgent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const times: Array<number> = []
  const failures: Record<string, number> = {}
  const until = Date.now() + plan.seconds * 1_000
  for (let i = 0; Date.now() < until; i++) {
    const q = plan.victimQueries[i % plan.victimQueries.length]!
    const answer = await send(victimAgent, `${plan.base}/products?q=${encodeURIComponent(q)}&limit=20`, { headers: as(VICTIM) })
    if (answer.status === 200) times.push(answer.ms)
    else failures[answer.status] = (failures[answer.status] ?? 0) + 1
  }
  stop = true
  await Promise.all(attackers)
  process.stdout.write(
    `${JSON.stringify({ victim: { n: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), failures }, attacker: statuses })}\n`
  )
  attackerAgent.destroy()
  victimAgent.destroy()
}

await main()

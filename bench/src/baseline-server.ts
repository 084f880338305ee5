/**
 * The baseline of the API benchmark: a minimal node:http server doing the
 * same lookup and the same vote transaction on the same database, with
 * node-postgres and nothing else. Started by api.ts; not part of the service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL ?? 10) })
const UUID = /^\/products\/([0-9a-f-]{36})$/

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let data = ""
    req.setEncoding("utf8").on("data", (chunk: string) => (data += chunk))
    req.on("end", () => resolve(data))
    req.on("error", reject)
  })

const vote = async (entityId: string, voter: string, direction: "up" | "down") => {
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const locked = await client.query("SELECT * FROM products WHERE id = $1 FOR UPDATE", [entityId])
    if (locked.rowCount === 0) {
      await client.query("ROLLBACK")
      return undefined
    }
    const previous = await client.query("SELECT direction FROM votes WHERE product_id = $1 AND voter = $2", [entityId, voter])
    const before = previous.rows[0]?.direction as string | undefined
    let counters = { up: Number(locked.rows[0].trust_up), down: Number(locked.rows[0].trust_down) }
    if (before !== direction) {
      const du = direction === "up" ? 1 : before === undefined ? 0 : -1
      const dd = direction === "down" ? 1 : before === undefined ? 0 : -1
      const after = await client.query(
        `WITH ballot AS (
           INSERT INTO votes (product_id, voter, direction) VALUES ($1, $2, $3)
           ON CONFLICT (product_id, voter) DO UPDATE SET direction = EXCLUDED.direction, updated_at = now())
         UPDATE products SET trust_up = trust_up + $4, trust_down = trust_down + $5 WHERE id = $1
         RETURNING trust_up, trust_down`,
        [entityId, voter, direction, du, dd]
      )
      counters = { up: Number(after.rows[0].trust_up), down: Number(after.rows[0].trust_down) }
    }
    await client.query("COMMIT")
    return { status: before === undefined ? "recorded" : before === direction ? "unchanged" : "changed", counters }
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined)
    throw error
  } finally {
    client.release()
  }
}

const server = createServer(async (req, res) => {
  try {
    const match = req.method === "GET" ? UUID.exec(req.url ?? "") : null
    if (match) {
      const result = await pool.query("SELECT * FROM products WHERE id = $1", [match[1]])
      return result.rowCount === 0 ? send(res, 404, { error: "not found" }) : send(res, 200, result.rows[0])
    }
    if (req.method === "POST" && req.url === "/vote") {
      const body = JSON.parse(await readBody(req)) as { entity_id: string; voter_id: string; direction?: "up" | "down" }
      const outcome = await vote(body.entity_id, `id:${body.voter_id}`, body.direction ?? "up")
      return outcome === undefined ? send(res, 404, { error: "not found" }) : send(res, outcome.status === "recorded" ? 201 : 200, outcome)
    }
    send(res, 404, { error: "not found" })
  } catch (error) {
    send(res, 500, { error: String(error) })
  }
})

server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`baseline listening on ${process.env.PORT}`))
process.on("SIGTERM", () => server.close(() => pool.end().then(() => process.exit(0))))

/**
 * The ceiling of the read benchmark: a node:http server that answers every
 * request with the same ready-made bytes (a product record's size). Nothing
 * productdir does per read can be faster than this on the same machine.
 */
import { createServer } from "node:http"

const body = Buffer.from(process.env.BODY ?? JSON.stringify({ record: "x".repeat(2400) }))

createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": body.byteLength, etag: '"ready"' })
  response.end(body)
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log(`ready-bytes listening on ${process.env.PORT}`))

process.on("SIGTERM", () => process.exit(0))

/** Plain HTTP helpers for the tests: real requests with the platform's fetch. */
import { Effect } from "effect"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly json: unknown
}

export const request = (url: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(url, init)
    const text = await response.text()
    let json: unknown
    try {
      json = text.length > 0 ? JSON.parse(text) : undefined
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  })

export const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })

/** The body as the shape a test expects; assertions on it are the check. */
export const bodyOf = <T>(reply: Reply): T => reply.json as T

export interface ProblemBody {
  readonly type: string
  readonly title: string
  readonly status: number
  readonly detail?: string
  readonly errors?: ReadonlyArray<{ readonly path: ReadonlyArray<string | number>; readonly message: string }>
}

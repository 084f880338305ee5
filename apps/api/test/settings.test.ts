/**
 * The API's settings as an operator writes them in the environment: a value the server cannot use is
 * refused at start, naming the setting and what it takes, not read as something else.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option, Redacted } from "effect"
import { configErrorText, StoreConfig } from "@productdir/runtime"
import { ApiConfig } from "../src/index.ts"

const settingsOf = (env: Record<string, string>) =>
  Effect.gen(function* () {
    return yield* ApiConfig.ApiConfig
  }).pipe(Effect.provide(ApiConfig.layerFromEnv), Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env })))

describe("settings from the environment", () => {
  it.effect("MCP_ALLOWED_ORIGINS takes origins of any scheme, each a scheme and a host", () =>
    Effect.gen(function* () {
      const settings = yield* settingsOf({
        MCP_ALLOWED_ORIGINS: " https://app.example , chrome-extension://abcdefghijklmnop,http://127.0.0.1:5173/,"
      })
      expect(settings.mcpAllowedOrigins).toEqual(["https://app.example", "chrome-extension://abcdefghijklmnop", "http://127.0.0.1:5173"])
      expect((yield* settingsOf({})).mcpAllowedOrigins).toEqual([])
    })
  )

  it.effect("an MCP_ALLOWED_ORIGINS entry that names no origin is refused, not kept to match nothing (or every opaque origin)", () =>
    Effect.gen(function* () {
      for (const wrong of ["app.example", "https://app.example/page", "https://app.example//", "file://", "null", "https://a.example, *"]) {
        const exit = yield* Effect.exit(settingsOf({ MCP_ALLOWED_ORIGINS: wrong }))
        expect(Exit.isFailure(exit), wrong).toBe(true)
        expect(String(exit), wrong).toContain("MCP_ALLOWED_ORIGINS")
        expect(String(exit), wrong).toContain("scheme and a host")
      }
    })
  )

  it.effect("DATABASE_URL must be a postgres:// URL, said at start by its scheme and host (never its password); empty is unset", () =>
    Effect.gen(function* () {
      const storeOf = (env: Record<string, string>) => StoreConfig.parse(ConfigProvider.fromEnv({ env }))
      for (const [url, said] of [
        ["not a url", "DATABASE_URL is not a URL (postgres://user@host:5432/database)"],
        ["mysql://user:secret@db.example/catalog", "DATABASE_URL mysql://db.example is not a postgres:// URL"]
      ] as const) {
        const error = yield* Effect.flip(storeOf({ DATABASE_URL: url }))
        expect(configErrorText(error)).toBe(said)
        expect(configErrorText(error)).not.toContain("secret")
      }
      expect(Option.isNone((yield* storeOf({ DATABASE_URL: "" })).databaseUrl)).toBe(true)
      const set = (yield* storeOf({ DATABASE_URL: "postgresql://u@127.0.0.1:5432/db" })).databaseUrl
      expect(Option.map(set, Redacted.value)).toEqual(Option.some("postgresql://u@127.0.0.1:5432/db"))
    })
  )

  it.effect("a setting's error in plain words: the setting, then what it takes", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(settingsOf({ PORT: "eighty" }))
      expect(configErrorText(error)).toBe("PORT: Expected an integer")
    })
  )
})

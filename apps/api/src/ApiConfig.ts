/** The API's configuration (DESIGN §14), read once at start with `Config`. */
import { Config, Context, Duration, Layer, Option, type Redacted, Schema } from "effect"
import { defaultUtm, type Utm } from "@productdir/domain"

export interface ApiSettings {
  readonly port: number
  readonly host: string
  readonly seed: "sample" | "none" | undefined
  readonly votesPerVoter: number
  readonly votesPerAddress: number
  readonly voterSecret: Option.Option<Redacted.Redacted>
  readonly trustProxy: boolean
  readonly cacheMaxAge: number
  readonly shutdownGrace: Duration.Duration
  readonly utm: Utm
  /** Origins whose browser requests may use /mcp; requests without an Origin header always may. */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
}

export class ApiConfig extends Context.Service<ApiConfig, ApiSettings>()("@productdir/api/ApiConfig") {}

const NonNegativeInt = (name: string, fallback: number) =>
  Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)), name).pipe(
    Config.withDefault(fallback)
  )

export const ApiConfigFromEnv = Config.all({
  // 0 asks the OS for a free port (tests, side-by-side runs); the announced URL has the real one.
  port: Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 65535 })), "PORT").pipe(
    Config.withDefault(3000)
  ),
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  seed: Config.option(Config.Literals(["sample", "none"], "SEED")).pipe(Config.map(Option.getOrUndefined)),
  votesPerVoter: NonNegativeInt("VOTE_RATE_PER_VOTER", 60),
  votesPerAddress: NonNegativeInt("VOTE_RATE_PER_ADDRESS", 60),
  voterSecret: Config.option(Config.Redacted("VOTER_SECRET")),
  trustProxy: Config.Boolean("TRUST_PROXY").pipe(Config.withDefault(false)),
  cacheMaxAge: NonNegativeInt("CACHE_MAX_AGE", 10),
  shutdownGrace: NonNegativeInt("SHUTDOWN_GRACE", 10).pipe(Config.map((s) => Duration.seconds(s))),
  mcpAllowedOrigins: Config.String("MCP_ALLOWED_ORIGINS").pipe(
    Config.withDefault(""),
    Config.map((list) => list.split(",").map((o) => o.trim()).filter((o) => o.length > 0))
  ),
  utm: Config.all({
    source: Config.String("UTM_SOURCE").pipe(Config.withDefault(defaultUtm.source)),
    medium: Config.String("UTM_MEDIUM").pipe(Config.withDefault(defaultUtm.medium)),
    campaign: Config.String("UTM_CAMPAIGN").pipe(Config.withDefault(defaultUtm.campaign))
  })
})

export const layerFromEnv = Layer.effect(ApiConfig, ApiConfigFromEnv)

/** Defaults for tests and embedding, overridable field by field. */
export const layerWith = (overrides: Partial<ApiSettings> = {}) =>
  Layer.succeed(ApiConfig, {
    port: 0,
    host: "127.0.0.1",
    seed: undefined,
    votesPerVoter: 60,
    votesPerAddress: 60,
    voterSecret: Option.none(),
    trustProxy: false,
    cacheMaxAge: 10,
    shutdownGrace: Duration.seconds(10),
    utm: defaultUtm,
    mcpAllowedOrigins: [],
    ...overrides
  })

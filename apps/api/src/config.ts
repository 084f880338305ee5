/**
 * The API's settings read from the environment (README, "Configuration"), once, at start, with `Config`; and the
 * defaults tests and embedders start from. What the settings are is the doors' (@productdir/edge/ApiConfig).
 */
import { Config, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import { DEFAULT_BURST_GUARD, defaultUtm } from "@productdir/domain"
import {
  ApiConfig,
  type ApiSettings,
  DEFAULT_CONCURRENCY,
  DEFAULT_CONNECTIONS_PER_ADDRESS,
  DEFAULT_MCP_MAX_SESSIONS
} from "@productdir/edge/ApiConfig"
import { burstGuardConfig } from "@productdir/runtime"
import {
  DEFAULT_ANONYMOUS_VOTES,
  DEFAULT_DIRECTORY_FETCHES,
  DEFAULT_REGISTRATIONS,
  DEFAULT_REGISTRATIONS_PER_ADDRESS,
  formatBudgets,
  NETWORK_LEVELS,
  type NetworkLevel
} from "@productdir/usecases"

export { ApiConfig, type ApiSettings, DEFAULT_CONCURRENCY, DEFAULT_CONNECTIONS_PER_ADDRESS, DEFAULT_MCP_MAX_SESSIONS }

const commaList = (name: string) =>
  Config.String(name).pipe(
    Config.withDefault(""),
    Config.map((list) =>
      list
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    )
  )

/** TRUST_PROXY: a number of hops; `true` and `false`, from when it was a switch, are 1 and 0. */
const TrustProxy = Config.schema(
  Schema.String.check(
    Schema.isPattern(/^(true|false|[0-9]|[12][0-9]|3[0-2])$/u, {
      message: "must be a number of trusted proxy hops from 0 to 32 (true means 1, false 0)"
    })
  ),
  "TRUST_PROXY"
).pipe(
  Config.map((value) => (value === "true" ? 1 : value === "false" ? 0 : Number(value))),
  Config.withDefault(0)
)

const NonNegativeInt = (name: string, fallback: number) =>
  Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)), name).pipe(Config.withDefault(fallback))

/** `v6/48=8,v4/24=8`: a budget per network level, each a whole number (0: none at that level); `off`: none at all. */
const NetworkBudgets = (name: string, fallback: string) =>
  Config.schema(
    Schema.String.check(
      Schema.isPattern(/^\s*(off|((v6\/(64|56|48|32)|v4\/(32|24|16))\s*=\s*\d+\s*(,\s*|$))*)\s*$/u, {
        message: `must be levels and budgets such as v6/48=8,v4/24=8 (levels: ${NETWORK_LEVELS.join(", ")}), or off`
      })
    ),
    name
  ).pipe(
    Config.withDefault(fallback),
    Config.map(
      (list): Readonly<Partial<Record<NetworkLevel, number>>> =>
        Object.fromEntries(
          list
            .split(",")
            .map((item) => item.trim())
            .filter((item) => item.length > 0 && item !== "off")
            .map((item) => {
              const [level, budget] = item.split("=").map((part) => part.trim())
              return [level as NetworkLevel, Number(budget)]
            })
        )
    )
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
  trustProxy: TrustProxy,
  registrationsPerAddress: NonNegativeInt("AGENT_REGISTRATIONS_PER_ADDRESS", DEFAULT_REGISTRATIONS_PER_ADDRESS),
  registrationsPerNetwork: NetworkBudgets("AGENT_REGISTRATIONS_PER_NETWORK", formatBudgets(DEFAULT_REGISTRATIONS)),
  anonymousVotesPerNetwork: NetworkBudgets("ANONYMOUS_VOTES_PER_NETWORK", formatBudgets(DEFAULT_ANONYMOUS_VOTES)),
  directoryFetchesPerNetwork: NetworkBudgets("KEY_DIRECTORY_FETCHES_PER_NETWORK", formatBudgets(DEFAULT_DIRECTORY_FETCHES)),
  burstGuard: burstGuardConfig,
  signedAgentsHttpHosts: commaList("SIGNED_AGENTS_HTTP_HOSTS"),
  publisherTestSites: commaList("PUBLISHER_TEST_SITES"),
  publisherDnsServers: commaList("PUBLISHER_DNS_SERVERS"),
  publisherCheckEvery: NonNegativeInt("PUBLISHER_CHECK_EVERY", 86_400).pipe(Config.map((s) => Duration.seconds(Math.max(1, s)))),
  cacheMaxAge: NonNegativeInt("CACHE_MAX_AGE", 10),
  cacheBytes: NonNegativeInt("CACHE_BYTES", 96 * 1024 * 1024),
  shutdownGrace: NonNegativeInt("SHUTDOWN_GRACE", 10).pipe(Config.map((s) => Duration.seconds(s))),
  headersTimeout: NonNegativeInt("HTTP_HEADERS_TIMEOUT", 10).pipe(Config.map((s) => Duration.seconds(s))),
  requestTimeout: NonNegativeInt("HTTP_REQUEST_TIMEOUT", 30).pipe(Config.map((s) => Duration.seconds(s))),
  keepAliveTimeout: NonNegativeInt("HTTP_KEEP_ALIVE_TIMEOUT", 5).pipe(Config.map((s) => Duration.seconds(s))),
  maxConnections: NonNegativeInt("HTTP_MAX_CONNECTIONS", 1024),
  concurrency: Config.schema(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1024 })),
    "HTTP_CONCURRENCY"
  ).pipe(Config.withDefault(DEFAULT_CONCURRENCY)),
  queueTimeout: Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)), "HTTP_QUEUE_TIMEOUT").pipe(
    Config.withDefault(10),
    Config.map((s) => Duration.seconds(s))
  ),
  maxConnectionsPerAddress: Config.option(
    Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0)), "HTTP_MAX_CONNECTIONS_PER_ADDRESS")
  ),
  publicUrl: Config.option(
    Config.schema(
      Schema.String.check(Schema.isPattern(/^https?:\/\/[^/?#\s]+$/u, { message: "must be an origin such as https://productdir.example" })),
      "PUBLIC_URL"
    )
  ),
  mcpAllowedOrigins: Config.schema(
    Schema.String.check(
      Schema.isPattern(/^\s*(?:[a-z][a-z0-9+.-]*:\/\/[^/?#\s,]+\/?\s*(?:,\s*|$))*$/iu, {
        message:
          "must be origins separated by commas, each a scheme and a host with no path, such as https://app.example or chrome-extension://<id>"
      })
    ),
    "MCP_ALLOWED_ORIGINS"
  ).pipe(
    Config.withDefault(""),
    // `https://app.example/` as a browser's address bar shows it: the origin is the same without its slash.
    Config.map((list) =>
      list
        .split(",")
        .map((item) => item.trim().replace(/\/$/u, ""))
        .filter((item) => item.length > 0)
    )
  ),
  mcpMaxSessions: Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(1)), "MCP_MAX_SESSIONS").pipe(
    Config.withDefault(DEFAULT_MCP_MAX_SESSIONS)
  ),
  mcpSessionIdle: NonNegativeInt("MCP_SESSION_IDLE", 3_600).pipe(Config.map((s) => Duration.seconds(s))),
  a2aSigningKey: Config.option(Config.Redacted("A2A_SIGNING_KEY")),
  metricsToken: Config.option(
    Config.schema(
      Schema.String.check(Schema.isPattern(/^[\x21-\x7e]{16,}$/u, { message: "must be at least 16 visible ASCII characters, no spaces" })),
      "METRICS_TOKEN"
    ).pipe(Config.map(Redacted.make))
  ),
  metricsPort: Config.option(
    Config.schema(Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 0, maximum: 65535 })), "METRICS_PORT")
  ),
  utm: Config.all({
    source: Config.String("UTM_SOURCE").pipe(Config.withDefault(defaultUtm.source)),
    medium: Config.String("UTM_MEDIUM").pipe(Config.withDefault(defaultUtm.medium)),
    campaign: Config.String("UTM_CAMPAIGN").pipe(Config.withDefault(defaultUtm.campaign))
  }),
  searchVocabulary: commaList("SEARCH_VOCABULARY")
})

export const layerFromEnv = Layer.effect(
  ApiConfig,
  Effect.map(
    ApiConfigFromEnv,
    ({ maxConnectionsPerAddress, registrationsPerAddress, registrationsPerNetwork, ...settings }): ApiSettings => ({
      ...settings,
      maxConnectionsPerAddress: Option.getOrElse(maxConnectionsPerAddress, () =>
        settings.trustProxy > 0 ? 0 : DEFAULT_CONNECTIONS_PER_ADDRESS
      ),
      // The address's own level comes from AGENT_REGISTRATIONS_PER_ADDRESS, and its 0 turns off every level.
      registrationsPerNetwork:
        registrationsPerAddress === 0
          ? {}
          : { ...registrationsPerNetwork, "v6/64": registrationsPerAddress, "v4/32": registrationsPerAddress }
    })
  )
)

/** Defaults for tests and embedding, overridable field by field. */
export const layerWith = (overrides: Partial<ApiSettings> = {}) =>
  Layer.succeed(ApiConfig, {
    port: 0,
    host: "127.0.0.1",
    seed: undefined,
    votesPerVoter: 60,
    votesPerAddress: 60,
    voterSecret: Option.none(),
    trustProxy: 0,
    registrationsPerNetwork: { "v6/64": 5, "v4/32": 5 },
    anonymousVotesPerNetwork: {},
    directoryFetchesPerNetwork: DEFAULT_DIRECTORY_FETCHES,
    burstGuard: DEFAULT_BURST_GUARD,
    signedAgentsHttpHosts: [],
    publisherTestSites: [],
    publisherDnsServers: [],
    publisherCheckEvery: Duration.days(1),
    cacheMaxAge: 10,
    cacheBytes: 96 * 1024 * 1024,
    shutdownGrace: Duration.seconds(10),
    headersTimeout: Duration.seconds(10),
    requestTimeout: Duration.seconds(30),
    keepAliveTimeout: Duration.seconds(5),
    maxConnections: 1024,
    concurrency: DEFAULT_CONCURRENCY,
    queueTimeout: Duration.seconds(10),
    maxConnectionsPerAddress: DEFAULT_CONNECTIONS_PER_ADDRESS,
    utm: defaultUtm,
    searchVocabulary: [],
    mcpAllowedOrigins: [],
    mcpMaxSessions: DEFAULT_MCP_MAX_SESSIONS,
    mcpSessionIdle: Duration.hours(1),
    publicUrl: Option.none(),
    a2aSigningKey: Option.none(),
    metricsToken: Option.none(),
    metricsPort: Option.none(),
    ...overrides
  })

/**
 * The API's settings as every door reads them (README, "Configuration"). Read from the environment once, at start,
 * by the app (apps/api/src/config.ts); a door only asks for the service.
 */
import type { Duration, Option, Redacted } from "effect"
import { Context } from "effect"
import type { BurstGuard, Utm } from "@productdir/domain"
import type { NetworkLevel } from "@productdir/usecases"

/**
 * Requests worked on at once. The process does its work on one thread (the embedded database too), so work beside
 * other work mostly waits for it: two at once keep a PostgreSQL server busy while this process writes an answer, and
 * a client's turn comes soon. More at once only lengthen the tail of another client's requests while one client
 * floods the process (docs/benchmarks.md, "Issue 57", has the current figures).
 */
export const DEFAULT_CONCURRENCY = 2

/** MCP sessions a process keeps: ~140 MB of them at most. */
export const DEFAULT_MCP_MAX_SESSIONS = 10_000

/** Connections per client address when HTTP_MAX_CONNECTIONS_PER_ADDRESS is not set and no proxy is trusted. */
export const DEFAULT_CONNECTIONS_PER_ADDRESS = 128

export interface ApiSettings {
  readonly port: number
  readonly host: string
  readonly seed: "sample" | "none" | undefined
  readonly votesPerVoter: number
  readonly votesPerAddress: number
  readonly voterSecret: Option.Option<Redacted.Redacted>
  /**
   * Trusted proxies in front of the API: 0, the socket's address is the client's; N, the N-th
   * `X-Forwarded-For` entry from the right (the one the nearest trusted proxy wrote) is.
   */
  readonly trustProxy: number
  /**
   * New agents (registrations, signed agents' first votes) per day at each level of a client's
   * networks; AGENT_REGISTRATIONS_PER_ADDRESS sets the address's own level (an IPv4 address, an IPv6
   * /64) and 0 there turns every level off.
   */
  readonly registrationsPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
  /** Votes without a proven identity per product per day at each level of a client's networks. */
  readonly anonymousVotesPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
  /** Key directories fetched for signed requests per minute at each level of a client's networks (not those cached). */
  readonly directoryFetchesPerNetwork: Readonly<Partial<Record<NetworkLevel, number>>>
  /** The burst guard (CROWD_DEFENSE=on, BURST_FLOOR, BURST_FACTOR); undefined with CROWD_DEFENSE=off. */
  readonly burstGuard: BurstGuard | undefined
  /** Hosts whose key directories may be fetched over plain HTTP (tests on loopback); every other one needs HTTPS. */
  readonly signedAgentsHttpHosts: ReadonlyArray<string>
  /**
   * Loopback sites that stand for publishers' domains (`domain=127.0.0.1:port`, tests): their challenges are fetched
   * there over plain HTTP; every other domain's over HTTPS at a public address.
   */
  readonly publisherTestSites: ReadonlyArray<string>
  /** DNS servers publishers' TXT records are asked of (`host` or `host:port`); the system's when empty. */
  readonly publisherDnsServers: ReadonlyArray<string>
  /** How long a verified publisher's proof holds before it is read again (three misses in a row suspend it). */
  readonly publisherCheckEvery: Duration.Duration
  readonly cacheMaxAge: number
  /** Bytes the read cache may hold (responses ready to send); 0 turns it off. */
  readonly cacheBytes: number
  readonly shutdownGrace: Duration.Duration
  /** A client must send its request headers within this (slowloris). */
  readonly headersTimeout: Duration.Duration
  /** … and the whole request, headers and body, within this. */
  readonly requestTimeout: Duration.Duration
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeout: Duration.Duration
  /** Connections beyond this are refused. */
  readonly maxConnections: number
  /**
   * Requests the application works on at once (HTTP_CONCURRENCY); the others wait for their turn, taken in
   * turn by client network (clients/fairShare.ts).
   */
  readonly concurrency: number
  /** How long a request may wait for its turn before it is answered 503 (HTTP_QUEUE_TIMEOUT, seconds). */
  readonly queueTimeout: Duration.Duration
  /**
   * Connections one client network (an IPv4 address, an IPv6 /64) may hold at once; 0 for no cap of
   * its own. Off by default behind a proxy (TRUST_PROXY), whose own address every connection has.
   */
  readonly maxConnectionsPerAddress: number
  readonly utm: Utm
  /** SEARCH_VOCABULARY: the operator's vocabulary files, read over the shipped one (docs/search.md). */
  readonly searchVocabulary: ReadonlyArray<string>
  /** Origins whose browser requests may use /mcp; requests without an Origin header always may. */
  readonly mcpAllowedOrigins: ReadonlyArray<string>
  /**
   * MCP sessions this process keeps at most (MCP_MAX_SESSIONS): a new one past it ends the least recently used
   * idle one. Each costs ~14 KB, and a client may start them as fast as it can send initialize.
   */
  readonly mcpMaxSessions: number
  /** How long an MCP session with no request and no open stream lives (MCP_SESSION_IDLE, seconds). */
  readonly mcpSessionIdle: Duration.Duration
  /** The URL clients reach this service at, e.g. https://productdir.example: absolute links, the server's own origin. */
  readonly publicUrl: Option.Option<string>
  /** A2A_SIGNING_KEY: the private JWK that signs the A2A agent card; none: a key generated once and kept in the store (packages/a2a/src/signing.ts). */
  readonly a2aSigningKey: Option.Option<Redacted.Redacted>
  /** METRICS_TOKEN: /metrics answers only requests with `Authorization: Bearer <token>` (apps/api/src/observability/scrape.ts). */
  readonly metricsToken: Option.Option<Redacted.Redacted>
  /** METRICS_PORT: /metrics is served on 127.0.0.1 at this port only, not on the public one (0: any free port). */
  readonly metricsPort: Option.Option<number>
}

export class ApiConfig extends Context.Service<ApiConfig, ApiSettings>()("@productdir/edge/ApiConfig") {}

import { isIP } from "node:net";
import { z } from "zod";

/** Everything the data plane reads from its environment, parsed once at start. */
const booleanFromEnv = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const port = z.coerce.number().int().min(0).max(65535);

const DEFAULT_CONCURRENCY = { free: 4, pro: 32, business: 64, enterprise: 128 };
/** RAG storage per customer by tier, in MiB of uploaded documents (docs/rag.md "Caps"). */
const DEFAULT_RAG_STORAGE_MB = { free: 50, pro: 1024, business: 10_240, enterprise: 102_400 };

function isCidr(text: string): boolean {
  const [address = "", prefix] = text.split("/");
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  const n = Number(prefix);
  return /^\d+$/.test(prefix) && n >= 0 && n <= (version === 4 ? 32 : 128);
}

const configSchema = z.object({
  PORT: port.default(8080),
  GRPC_PORT: port.default(9090),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** How long to wait for a new Postgres connection before failing (raise on busy hosts). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(5_000),
  DATA_DIR: z.string().min(1).default("./.evident"),
  /**
   * Diagnostic: every this many seconds the embedded store's worker prints its V8 heap, PGlite's
   * WebAssembly memory and Postgres' memory contexts to stderr (pglite-memory-log.ts). 0: off.
   */
  PGLITE_MEMORY_LOG_SECS: z.coerce.number().int().min(0).default(0),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
    .optional(),
  EVIDENT_ADMIN_KEY: z
    .string()
    .regex(/^ev_sk_[A-Za-z0-9]{32,128}$/, "must be ev_sk_ followed by 32-128 base62 characters")
    .optional(),
  /** Base64 of 32 bytes: encrypts backend credentials at rest. Unset: a key file in DATA_DIR. */
  EVIDENT_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, "base64").length === 32, "must be base64 of exactly 32 bytes")
    .optional(),
  /** Timeouts for calls to model backends. */
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5_000),
  UPSTREAM_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  UPSTREAM_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  /** Attempts on other targets before the first byte reaches the client. */
  UPSTREAM_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  /**
   * Addresses customer-registered backends and model checks may reach although the outbound
   * policy denies them by default (loopback, private, link-local, this host): comma-separated
   * CIDRs or addresses, e.g. "10.20.0.0/16,192.168.1.7". Deployments are always trusted.
   */
  UPSTREAM_ALLOWED_CIDRS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((c) => c.trim())
        .filter((c) => c.length > 0),
    )
    .refine((list) => list.every(isCidr), "must be comma-separated CIDRs or IP addresses")
    .default([]),
  /** Connections per backend origin (keep it above every tier's concurrency cap). */
  UPSTREAM_POOL_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(1024),
  /** Gateways a call may pass before it is refused as a loop (508 loop_detected). */
  UPSTREAM_MAX_HOPS: z.coerce.number().int().min(1).max(32).default(4),
  /** Concurrent upstream calls and streams per customer, by tier ("free=4,pro=32,..."). */
  CUSTOMER_CONCURRENCY: z
    .string()
    .transform((v, ctx) => {
      const caps = { ...DEFAULT_CONCURRENCY };
      for (const part of v.split(",").filter((p) => p.trim() !== "")) {
        const [tier = "", n = ""] = part.split("=").map((x) => x.trim());
        const value = Number(n);
        if (!(tier in caps) || !Number.isInteger(value) || value < 1 || value > 100_000) {
          ctx.addIssue({
            code: "custom",
            message: "must be tier=number pairs, e.g. free=4,pro=32",
          });
          return z.NEVER;
        }
        caps[tier as keyof typeof caps] = value;
      }
      return caps;
    })
    .default(DEFAULT_CONCURRENCY),
  /** Longest time an authenticated request's body may take to arrive (408 request_timeout). */
  REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Largest audio upload for /v1/audio/transcriptions, in bytes. */
  MAX_AUDIO_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(25 * 1024 * 1024),
  /** Full reload of the routing table, as a safety net for missed change notifications. */
  ROUTING_RELOAD_MS: z.coerce.number().int().min(200).max(3_600_000).default(30_000),
  /** Ed25519 private key (PKCS#8 PEM) that signs audit checkpoints. Unset: a key file in DATA_DIR. */
  EVIDENT_AUDIT_SIGNING_KEY: z
    .string()
    .includes("PRIVATE KEY", { message: "must be a PEM private key" })
    .optional(),
  /** The local audit log (see AUDIT_DURABILITY), and the cap on what it holds not yet in the store. */
  AUDIT_SPOOL_DIR: z.string().min(1).optional(),
  AUDIT_SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 4)
    .default(512 * 1024 * 1024),
  /**
   * When an audit record counts as durable before the reply leaves: "local" (synced, O_DSYNC, to the
   * local log in AUDIT_SPOOL_DIR; ingested into the store in the background) or "store" (committed
   * to the store; the local log only while the store fails).
   */
  AUDIT_DURABILITY: z.enum(["local", "store"]).default("local"),
  /**
   * A lone call's synced log write (no other call in progress) is waited for with the event loop
   * kept turning, up to this many ms, so its reply leaves as soon as the write returns (about
   * 0.1-0.3 ms sooner on a VM); 0 turns it off (docs/audit.md, "A lone call's wait").
   */
  AUDIT_ACTIVE_WAIT_MS: z.coerce.number().min(0).max(50).default(2),
  /** How often chain checkpoints are signed, and the retention sweeper runs. */
  AUDIT_CHECKPOINT_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  RETENTION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(3_600_000),
  /** Envoy adapters: what happens when the core cannot decide; where the caller's key is removed. */
  ENVOY_FAILURE_MODE: z.enum(["closed", "open"]).default("closed"),
  ENVOY_REMOVE_AUTHORIZATION_IN: z.enum(["ext_proc", "ext_authz", "never"]).default("ext_proc"),
  ENVOY_DECISION_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(1_500),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Largest JSON request body accepted, in bytes (413 beyond). */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  /** How long an authenticated key stays cached before it is looked up again. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** How long in-flight requests may drain on SIGTERM before the process exits. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** On SIGTERM, how long /readyz answers 503 (so load balancers stop sending) before listeners close. */
  SHUTDOWN_DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  /** Trust a sane X-Request-ID from the caller (else always generate one). */
  TRUST_REQUEST_ID: booleanFromEnv.default(true),
  /** While Redis is unreachable: per-replica "local" limits, "open" (admit all) or "closed" (503). */
  RATE_LIMIT_FAIL_MODE: z.enum(["local", "open", "closed"]).default("local"),
  /** Replicas sharing the limits; the "local" fail mode allows each limit / EXPECTED_REPLICAS. */
  EXPECTED_REPLICAS: z.coerce.number().int().min(1).max(1000).default(1),
  /** Requests per minute per API key on the management API (/api/v1). */
  MANAGEMENT_RPM: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /** Completion tokens reserved for a call that names no max_tokens. */
  DEFAULT_MAX_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(1024),
  /** How often metered usage is written to the store (aggregated per minute in between). */
  USAGE_FLUSH_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** How long a customer's budget and custom limits are cached on a replica. */
  LIMITS_CONFIG_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /** Prometheus metrics at GET /metrics on this port, without a key (unset: only the API's). */
  METRICS_PORT: port.optional(),
  /** OTLP/HTTP collector base URL for traces (/v1/traces is appended); unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .regex(/^https?:\/\/[^\s]+$/, "must be an http:// or https:// URL")
    .optional(),
  /** service.name on every exported span. */
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("evident-dataplane"),
  /** Files API (batch input): largest upload, and most request lines in one batch. */
  FILES_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(100 * 1024 * 1024),
  BATCH_MAX_LINES: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  /** Batch worker: lines in flight per batch, share of the customer's limits, polling, lease. */
  BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  BATCH_LIMIT_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  BATCH_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  BATCH_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /** Realtime WebSocket sessions: message cap, timeouts, pings, sessions per customer, buffering. */
  REALTIME_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(4 * 1024 * 1024),
  REALTIME_IDLE_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  REALTIME_MAX_SESSION_MS: z.coerce.number().int().min(100).max(86_400_000).default(1_800_000),
  REALTIME_PING_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  REALTIME_MAX_SESSIONS: z.coerce.number().int().min(1).max(100_000).default(20),
  REALTIME_MAX_BUFFERED_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(8 * 1024 * 1024),
  /** RAG: stored MiB of documents per customer by tier ("free=50,pro=1024"; unnamed tiers keep defaults). */
  RAG_STORAGE_MB: z
    .string()
    .transform((v, ctx) => {
      const caps = { ...DEFAULT_RAG_STORAGE_MB };
      for (const part of v.split(",").filter((p) => p.trim() !== "")) {
        const [tier = "", n = ""] = part.split("=").map((x) => x.trim());
        const value = Number(n);
        if (!(tier in caps) || !Number.isInteger(value) || value < 0 || value > 100_000_000) {
          ctx.addIssue({
            code: "custom",
            message: "must be tier=MiB pairs, e.g. free=50,pro=1024",
          });
          return z.NEVER;
        }
        caps[tier as keyof typeof caps] = value;
      }
      return caps;
    })
    .default(DEFAULT_RAG_STORAGE_MB),
  /**
   * RAG: the longest a vector or hybrid search may scan exactly (no pgvector), in ms; beyond it the
   * search is stopped with 503 (docs/rag.md). Keeps one tenant's large collection from holding a
   * shared Postgres connection for seconds per search.
   */
  RAG_EXACT_SCAN_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
  /** RAG: largest document upload, in bytes (413 beyond). */
  RAG_MAX_DOCUMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(20 * 1024 * 1024),
  /** RAG: uploads up to this size are ingested before the upload answers; larger ones are queued. */
  RAG_SYNC_INGEST_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(1024 ** 3)
    .default(256 * 1024),
  /** RAG ingestion worker: polling interval and lease on a document being ingested. */
  RAG_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(1_000),
  RAG_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(300_000),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`invalid environment variable ${variable}: ${reason}`);
    this.name = "ConfigError";
  }
}

/**
 * Parse the environment. An empty string counts as unset. A bad value throws a ConfigError that
 * names the variable (and never echoes its value, which may be a secret).
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== "") cleaned[key] = value;
  }
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new ConfigError(variable, issue?.message ?? "invalid value");
  }
  return result.data;
}

/** The process environment; the one place that reads it. */
export function loadConfigFromProcess(): Config {
  return loadConfig(process.env);
}

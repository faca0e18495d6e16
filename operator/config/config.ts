import { hostname } from "node:os";
import { z } from "zod";

/** The operator's configuration, read from the environment once at start. */
export interface OperatorConfig {
  apiUrl: string;
  /** The key the operator calls the native API with. */
  apiKey: string;
  /** "admin" when only EVIDENT_ADMIN_KEY was given (a warning is logged at start). */
  apiKeyRole: "operator" | "admin";
  watchNamespace: string | undefined;
  resyncSeconds: number;
  metricsPort: number;
  /** false: a single replica that reconciles without a Lease (development only). */
  leaderElection: boolean;
  leaseName: string;
  leaseNamespace: string;
  leaseDurationSeconds: number;
  podName: string;
  concurrency: number;
  logLevel: string;
  /** endpoint_url template with {service}, {namespace}, {port}. */
  endpointTemplate: string;
  /** Path of a kubeconfig; absent means in-cluster (service account) or ~/.kube/config. */
  kubeconfig: string | undefined;
  customerBinding: "required" | "off";
  customerLabel: string;
  concurrencyMetric: string;
}

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const schema = z.object({
  EVIDENT_API_URL: z.url({ protocol: /^https?$/ }),
  /** An API key with role operator: what the operator needs and nothing else. */
  EVIDENT_OPERATOR_KEY: z
    .string()
    .regex(
      /^ev_sk_[A-Za-z0-9]{32,}$/,
      "must be an API key: ev_sk_ followed by 32+ base62 characters",
    )
    .optional(),
  /** Fallback for trials when no operator key is given. */
  EVIDENT_ADMIN_KEY: z
    .string()
    .regex(
      /^ev_sk_[A-Za-z0-9]{32,}$/,
      "must be an admin key: ev_sk_ followed by 32+ base62 characters",
    )
    .optional(),
  WATCH_NAMESPACE: optionalText,
  RESYNC_SECONDS: integer(5, 86_400).default(300),
  METRICS_PORT: integer(1, 65_535).optional(),
  /** The Helm chart sets PORT for the operator's health/metrics port; METRICS_PORT wins when both are set. */
  PORT: integer(1, 65_535).optional(),
  LEADER_ELECTION: z.enum(["true", "false"]).default("true"),
  LEASE_NAME: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS subdomain name")
    .default("evident-operator"),
  LEASE_NAMESPACE: optionalText,
  POD_NAMESPACE: optionalText,
  LEASE_DURATION_SECONDS: integer(2, 600).default(15),
  POD_NAME: optionalText,
  RECONCILE_CONCURRENCY: integer(1, 64).default(4),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  KUBECONFIG: optionalText,
  /** required: Route, GuardrailRule and LegalHold act only for the customer their namespace is labelled with. */
  CUSTOMER_BINDING: z.enum(["required", "off"]).default("required"),
  CUSTOMER_LABEL: z
    .string()
    .regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, "must be a label key")
    .default("evident.dev/customer-id"),
  /** Custom metric (per pod, in-flight requests) the engines' HPAs scale on. */
  ENGINE_CONCURRENCY_METRIC: z
    .string()
    .regex(/^[A-Za-z_:][A-Za-z0-9_:]*$/, "must be a metric name")
    .default("evident_engine_requests_in_flight"),
  ENDPOINT_URL_TEMPLATE: z
    .string()
    .regex(
      /^https?:\/\/\S+$/,
      "must be an http(s) URL template, e.g. http://{service}.{namespace}.svc:{port}/v1",
    )
    .default("http://{service}.{namespace}.svc:{port}/v1"),
});

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`invalid environment variable ${variable}: ${detail}`);
    this.name = "ConfigError";
  }
}

/** Parses the environment; a bad value throws a ConfigError naming the variable (never its value). */
export function loadOperatorConfig(
  env: Record<string, string | undefined> = process.env,
): OperatorConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    const value = env[variable];
    throw new ConfigError(
      variable,
      value === undefined ? "required" : (issue?.message ?? "invalid"),
    );
  }
  const e = parsed.data;
  const apiKey = e.EVIDENT_OPERATOR_KEY ?? e.EVIDENT_ADMIN_KEY;
  if (apiKey === undefined)
    throw new ConfigError(
      "EVIDENT_OPERATOR_KEY",
      "required (an API key with role operator; EVIDENT_ADMIN_KEY is accepted for trials)",
    );
  const namespace = e.LEASE_NAMESPACE ?? e.POD_NAMESPACE ?? e.WATCH_NAMESPACE ?? "default";
  return {
    apiUrl: e.EVIDENT_API_URL,
    apiKey,
    apiKeyRole: e.EVIDENT_OPERATOR_KEY === undefined ? "admin" : "operator",
    watchNamespace: e.WATCH_NAMESPACE,
    resyncSeconds: e.RESYNC_SECONDS,
    metricsPort: e.METRICS_PORT ?? e.PORT ?? 8081,
    leaderElection: e.LEADER_ELECTION === "true",
    leaseName: e.LEASE_NAME,
    leaseNamespace: namespace,
    leaseDurationSeconds: e.LEASE_DURATION_SECONDS,
    podName: e.POD_NAME ?? hostname(),
    concurrency: e.RECONCILE_CONCURRENCY,
    logLevel: e.LOG_LEVEL,
    kubeconfig: e.KUBECONFIG,
    endpointTemplate: e.ENDPOINT_URL_TEMPLATE,
    customerBinding: e.CUSTOMER_BINDING,
    customerLabel: e.CUSTOMER_LABEL,
    concurrencyMetric: e.ENGINE_CONCURRENCY_METRIC,
  };
}

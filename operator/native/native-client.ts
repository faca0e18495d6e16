/**
 * The data plane's native REST API as the operator uses it: wire types, the mapping from CR specs
 * (camelCase) to request bodies (snake_case), and one HTTP implementation. Adjust the contract here.
 */
import { GatewayError, isErrorCode, type ValidationIssue } from "../../dataplane/core/errors.js";
import type { GuardrailRuleSpec, LegalHoldSpec, ModelSpec, RouteSpec } from "../crd/specs.js";

export interface ModelBody {
  name: string;
  version: string;
  architecture?: string;
  modality: string;
  aliases: string[];
  required_tier: string;
  pricing?: { input_per_1k: number; output_per_1k: number };
  context_window?: number;
  engine_artifacts: Record<string, unknown>;
}
export interface NativeModel extends Partial<ModelBody> {
  id: string;
  status?: string;
}

export interface Scaling {
  min_replicas: number;
  max_replicas: number;
  target_concurrency?: number;
}
export type NativeDeploymentStatus =
  "pending" | "provisioning" | "running" | "failed" | "terminated";
export interface NativeDeployment {
  id: string;
  model_id?: string;
  status: NativeDeploymentStatus;
  endpoint_url?: string | null;
  scaling?: Partial<Scaling>;
  reason?: string | null;
}
export interface DeploymentPatch {
  status?: NativeDeploymentStatus;
  endpoint_url?: string;
  reason?: string;
  scaling?: Scaling;
}

export interface RouteBody {
  customer_id: string;
  name?: string;
  match: { model: string; headers?: Record<string, string> };
  strategy: string;
  targets: { model: string; weight: number }[];
  enabled: boolean;
}
export interface RuleBody {
  customer_id: string;
  name: string;
  kind: string;
  pattern?: string;
  keywords?: string[];
  entities?: string[];
  max_tokens?: number;
  action: string;
  applies_to: string;
  enabled: boolean;
}
export interface LegalHoldBody {
  /** Sent as the customer_id query parameter, not in the (strict) JSON body. */
  customer_id: string;
  from: string;
  to: string;
  reason: string;
  scope?: { model?: string; key_ids?: string[] };
}
export interface NativeLegalHold extends Partial<LegalHoldBody> {
  id: string;
  active: boolean;
}
export type Native<T> = Partial<T> & { id: string };

/** CRUD of one native resource kind; get and delete treat 404 as "absent". */
export interface NativeCrud<Body, Item> {
  create(body: Body): Promise<Item>;
  get(id: string): Promise<Item | undefined>;
  patch(id: string, body: Partial<Body>): Promise<Item>;
  delete(id: string): Promise<void>;
}

export interface NativeApi {
  models: NativeCrud<ModelBody, NativeModel> & {
    find(name: string, version: string): Promise<NativeModel | undefined>;
  };
  deployments: {
    create(body: { model_id: string; scaling: Scaling }): Promise<NativeDeployment>;
    get(id: string): Promise<NativeDeployment | undefined>;
    patch(id: string, body: DeploymentPatch): Promise<NativeDeployment>;
    delete(id: string): Promise<void>;
  };
  routes: NativeCrud<RouteBody, Native<RouteBody>>;
  guardrailRules: NativeCrud<RuleBody, Native<RuleBody>>;
  legalHolds: {
    create(body: LegalHoldBody): Promise<NativeLegalHold>;
    /** The holds of one customer (an admin key may list any customer's). */
    list(customerId: string): Promise<NativeLegalHold[]>;
    delete(id: string): Promise<void>;
  };
}

// ---- CR spec -> request body -------------------------------------------------------------------

export function modelBody(spec: ModelSpec): ModelBody {
  return dropUndefined({
    name: spec.name,
    version: spec.version,
    architecture: spec.architecture,
    modality: spec.modality,
    aliases: spec.aliases ?? [],
    required_tier: spec.requiredTier,
    pricing: spec.pricing && {
      input_per_1k: spec.pricing.inputPer1k,
      output_per_1k: spec.pricing.outputPer1k,
    },
    context_window: spec.contextWindow,
    engine_artifacts: spec.engineArtifacts ?? {},
  });
}

export function routeBody(spec: RouteSpec, fallbackName: string): RouteBody {
  return {
    customer_id: spec.customerId,
    name: spec.name ?? fallbackName,
    match: dropUndefined({ model: spec.match.model, headers: spec.match.headers }),
    strategy: spec.strategy,
    targets: spec.targets.map((t) => ({ model: t.model, weight: t.weight })),
    enabled: spec.enabled,
  };
}

export function ruleBody(spec: GuardrailRuleSpec): RuleBody {
  return dropUndefined({
    customer_id: spec.customerId,
    name: spec.name,
    kind: spec.kind,
    pattern: spec.pattern,
    keywords: spec.keywords,
    entities: spec.entities,
    max_tokens: spec.maxTokens,
    action: spec.action,
    applies_to: spec.appliesTo,
    enabled: spec.enabled,
  });
}

export function legalHoldBody(spec: LegalHoldSpec): LegalHoldBody {
  return dropUndefined({
    customer_id: spec.customerId,
    from: spec.from,
    to: spec.to,
    reason: spec.reason,
    scope: spec.scope,
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---- HTTP implementation -------------------------------------------------------------------------

export interface HttpNativeOptions {
  baseUrl: string;
  /** An API key with role operator (or, for trials, the admin key). */
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function httpNativeApi(options: HttpNativeOptions): NativeApi {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new GatewayError("upstream_unavailable", `native API ${method} ${path} unreachable`, {
        cause: err,
      });
    }
    const text = await response.text();
    if (!response.ok) throw nativeError(response.status, text);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  async function getOrUndefined<T>(path: string): Promise<T | undefined> {
    try {
      return await request<T>("GET", path);
    } catch (err) {
      if (err instanceof GatewayError && err.status === 404) return undefined;
      throw err;
    }
  }

  async function deleteIgnoringMissing(path: string): Promise<void> {
    try {
      await request<unknown>("DELETE", path);
    } catch (err) {
      if (err instanceof GatewayError && err.status === 404) return;
      throw err;
    }
  }

  function crud<Body, Item>(path: string): NativeCrud<Body, Item> {
    return {
      create: (body) => request<Item>("POST", path, body),
      get: (id) => getOrUndefined<Item>(`${path}/${encodeURIComponent(id)}`),
      patch: (id, body) => request<Item>("PATCH", `${path}/${encodeURIComponent(id)}`, body),
      delete: (id) => deleteIgnoringMissing(`${path}/${encodeURIComponent(id)}`),
    };
  }

  return {
    models: {
      ...crud<ModelBody, NativeModel>("/api/v1/models"),
      async find(name, version) {
        const listed = await request<unknown>(
          "GET",
          `/api/v1/models?name=${encodeURIComponent(name)}`,
        );
        return listItems<NativeModel>(listed).find((m) => m.name === name && m.version === version);
      },
    },
    deployments: crud("/api/v1/deployments"),
    routes: crud("/api/v1/routes"),
    guardrailRules: {
      ...crud<RuleBody, Native<RuleBody>>("/api/v1/guardrails/rules"),
      // The rule body is strict: the customer goes in the query, as for legal holds.
      create: ({ customer_id, ...body }) =>
        request<Native<RuleBody>>(
          "POST",
          `/api/v1/guardrails/rules?customer_id=${encodeURIComponent(customer_id)}`,
          body,
        ),
      patch: (id, { customer_id: _customer, ...body }) =>
        request<Native<RuleBody>>(
          "PATCH",
          `/api/v1/guardrails/rules/${encodeURIComponent(id)}`,
          body,
        ),
    },
    legalHolds: {
      create: ({ customer_id, ...body }) =>
        request<NativeLegalHold>(
          "POST",
          `/api/v1/audit/legal-hold?customer_id=${encodeURIComponent(customer_id)}`,
          body,
        ),
      list: async (customerId) =>
        listItems<NativeLegalHold>(
          await request<unknown>(
            "GET",
            `/api/v1/audit/legal-hold?customer_id=${encodeURIComponent(customerId)}`,
          ),
        ),
      delete: (id) => deleteIgnoringMissing(`/api/v1/audit/legal-hold/${encodeURIComponent(id)}`),
    },
  };
}

/** A list response is either an array or an object with one array field (data, items, models, ...). */
function listItems<T>(body: unknown): T[] {
  if (Array.isArray(body)) return body as T[];
  if (typeof body === "object" && body !== null) {
    const array = Object.values(body).find((v) => Array.isArray(v));
    if (array) return array as T[];
  }
  return [];
}

/** The error envelope {error:{message,type,code,detail?}} becomes a GatewayError with the same code. */
export function nativeError(status: number, text: string): GatewayError {
  let message = `native API answered ${status}`;
  let code = "";
  let detail: ValidationIssue[] | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    const error =
      typeof parsed === "object" && parsed !== null && "error" in parsed ? parsed.error : undefined;
    if (typeof error === "object" && error !== null) {
      if ("message" in error && typeof error.message === "string") message = error.message;
      if ("code" in error && typeof error.code === "string") code = error.code;
      if ("detail" in error && Array.isArray(error.detail))
        detail = error.detail as ValidationIssue[];
    }
    if (
      detail === undefined &&
      typeof parsed === "object" &&
      parsed !== null &&
      "detail" in parsed &&
      Array.isArray(parsed.detail)
    ) {
      detail = parsed.detail as ValidationIssue[];
    }
  } catch {
    // not JSON: keep the status-derived message
  }
  if (isErrorCode(code)) return new GatewayError(code, message, { detail });
  if (status === 404) return new GatewayError("resource_not_found", message);
  if (status === 409) return new GatewayError("resource_conflict", message);
  if (status === 422 || status === 400)
    return new GatewayError("validation_failed", message, { detail });
  if (status === 401) return new GatewayError("invalid_api_key", message);
  if (status === 403) return new GatewayError("insufficient_role", message);
  return new GatewayError("upstream_unavailable", message);
}

/** Human-readable text of a validation failure for a status condition. */
export function describeNativeError(err: GatewayError): string {
  if (!err.detail || err.detail.length === 0) return err.message;
  return `${err.message}: ${err.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}`;
}

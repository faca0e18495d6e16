/** The native API's HTTP implementation: one request per call, Bearer operator key, a deadline. */
import { GatewayError } from "../../dataplane/core/errors.js";
import type {
  ModelBody,
  Native,
  NativeApi,
  NativeCrud,
  NativeLegalHold,
  NativeModel,
  RuleBody,
} from "./native-api.js";
import { nativeError } from "./native-error.js";

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

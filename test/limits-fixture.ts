/** Shared set-up of the limits tests: customers with their ids, chat calls, polling. */
import { call } from "./support/test-app.js";

export const T0 = Date.parse("2026-11-18T12:00:00.000Z");

export async function newCustomer(
  gateway: string,
  adminKey: string,
  tier: string,
): Promise<{ customerId: string; key: string }> {
  const customer = await call(gateway, "POST", "/api/v1/customers", adminKey, {
    name: `c-${tier}`,
    tier,
  });
  if (customer.status !== 201) throw new Error(JSON.stringify(customer.json));
  const key = await call(gateway, "POST", "/api/v1/keys", adminKey, {
    customer_id: customer.json.id,
    name: "k",
  });
  return { customerId: customer.json.id as string, key: key.json.key as string };
}

export function chat(
  gateway: string,
  key: string,
  model: string,
  extra: Record<string, unknown> = {},
  content = "hello there",
) {
  return call(gateway, "POST", "/v1/chat/completions", key, {
    model,
    messages: [{ role: "user", content }],
    ...extra,
  });
}

export async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** The X-RateLimit headers (and Retry-After) of a response, for exact comparisons. */
export function limitHeaders(headers: Headers): Record<string, string | null> {
  const names = [
    "retry-after",
    "x-ratelimit-limit-requests",
    "x-ratelimit-remaining-requests",
    "x-ratelimit-reset-requests",
    "x-ratelimit-limit-tokens",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-tokens",
  ];
  return Object.fromEntries(names.map((n) => [n, headers.get(n)]));
}

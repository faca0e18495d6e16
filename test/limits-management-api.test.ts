import test from "ava";
import { call, errorOf, startTestApp } from "./support/test-app.js";

// A gateway of its own with a management limit of 3 requests a minute.
test("the management API has its own per-key limit for customers' keys; admin keys (the platform's automation) are exempt", async (t) => {
  const small = await startTestApp({ env: { MANAGEMENT_RPM: "3" } });
  try {
    const created = await call(small.url, "POST", "/api/v1/keys", small.adminKey, {
      name: "member",
    });
    const member = created.json.key as string;
    for (let i = 2; i >= 0; i--) {
      const ok = await call(small.url, "GET", "/api/v1/budget/config", member);
      t.is(ok.status, 200);
      t.is(ok.headers.get("x-ratelimit-limit-requests"), "3");
      t.is(ok.headers.get("x-ratelimit-remaining-requests"), String(i));
    }
    const refused = await call(small.url, "GET", "/api/v1/keys", member);
    t.is(refused.status, 429);
    t.is(errorOf(refused.json).code, "rate_limit_exceeded");
    t.is(refused.headers.get("x-ratelimit-remaining-requests"), "0");
    t.regex(refused.headers.get("retry-after") ?? "", /^\d+$/);
    t.regex(errorOf(refused.json).message, /requests per minute \(3\); retry after \d+ seconds?/);
    for (let i = 0; i < 5; i++)
      t.is((await call(small.url, "GET", "/api/v1/customers", small.adminKey)).status, 200);
  } finally {
    await small.close();
  }
});

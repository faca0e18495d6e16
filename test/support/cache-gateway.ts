import { manualClock } from "../../dataplane/core/clock.js";
import { freshPostgresUrl, POSTGRES_URL } from "./databases.js";
import { startTestApp, type RunningApp } from "./test-app.js";

/**
 * Waits for a condition with a slow poll: the manual clock does not move, so every poll counts in
 * one rate-limit minute of the management API.
 */
export async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 120; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export const cacheBackends = ["pglite", ...(POSTGRES_URL ? ["postgres"] : [])] as const;
export const T0 = Date.parse("2026-11-23T12:00:00Z");

export async function cacheGateway(backend: string, env: Record<string, string> = {}) {
  const clock = manualClock(T0);
  const fresh = backend === "postgres" ? await freshPostgresUrl() : undefined;
  const gw: RunningApp = await startTestApp({
    clock,
    env: { ...env, ...(fresh ? { DATABASE_URL: fresh.url } : {}) },
  });
  return {
    gw,
    clock,
    async close() {
      await gw.close();
      await fresh?.drop();
    },
  };
}

/** Reads a server-sent events response into its text deltas. */
export async function streamText(url: string, key: string, body: unknown) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const raw = await res.text();
  const text = raw
    .split("\n\n")
    .filter((e) => e.startsWith("data: {"))
    .map((e) => JSON.parse(e.slice(6)) as { choices: { delta?: { content?: string } }[] })
    .map((e) => e.choices[0]?.delta?.content ?? "")
    .join("");
  return { res, raw, text };
}

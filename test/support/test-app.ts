import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pino } from "pino";
import { createApp, type App } from "../../dataplane/app/create-app.js";
import { memoryBroadcast } from "../../dataplane/broadcast/broadcast.js";
import { loadConfig } from "../../dataplane/config/config.js";
import type { Clock } from "../../dataplane/core/clock.js";
import { generateApiKey } from "../../dataplane/core/api-key-format.js";
import { openPglite } from "../../dataplane/store/pglite-database.js";

export interface RunningApp {
  app: App;
  url: string;
  adminKey: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment, as the process would see it (e.g. DATABASE_URL, REDIS_URL). */
  env?: Record<string, string>;
  clock?: Clock;
  adminKey?: string;
}

/**
 * A data plane listening on 127.0.0.1 on a free port. Without DATABASE_URL in `env`, it runs on a
 * private in-memory embedded database.
 */
export async function startTestApp(options: TestAppOptions = {}): Promise<RunningApp> {
  const adminKey = options.adminKey ?? generateApiKey();
  // Each app gets its own local audit log unless the test names a directory.
  const ownLog =
    options.env?.DATA_DIR === undefined && options.env?.AUDIT_SPOOL_DIR === undefined
      ? await mkdtemp(path.join(tmpdir(), "evident-audit-log-"))
      : undefined;
  const config = loadConfig({
    LOG_LEVEL: "silent",
    EVIDENT_ADMIN_KEY: adminKey,
    // Sized for a busy CI host: a slow connect is not a failure of the code under test.
    DATABASE_CONNECT_TIMEOUT_MS: "30000",
    ...(ownLog === undefined ? {} : { AUDIT_SPOOL_DIR: ownLog }),
    ...options.env,
  });
  const stores = config.DATABASE_URL
    ? undefined
    : { db: await openPglite(undefined), redis: undefined, broadcast: memoryBroadcast() };
  const app = await createApp(config, {
    logger: pino({ level: "silent" }),
    clock: options.clock,
    stores,
  });
  await app.http.listen({ port: 0, host: "127.0.0.1" });
  const address = app.http.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    adminKey,
    async close() {
      await app.close();
      if (stores) await stores.db.close();
      if (ownLog !== undefined) await rm(ownLog, { recursive: true, force: true });
    },
  };
}

/** fetch with a bearer key and a JSON body. */
export async function call(
  base: string,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const init: RequestInit = { method, headers: { ...headers } };
  const h = init.headers as Record<string, string>;
  if (key !== undefined) h.authorization = `Bearer ${key}`;
  if (body !== undefined) {
    h["content-type"] ??= "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let json: Record<string, unknown>;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    json = { raw: text };
  }
  return { status: res.status, headers: res.headers, json };
}

/** The `error` object of an envelope, typed for assertions. */
export function errorOf(json: Record<string, unknown>): {
  message: string;
  type: string;
  code: string;
} {
  return json.error as { message: string; type: string; code: string };
}

/**
 * The gateway under benchmark, in its own process, logging silenced, listening on 127.0.0.1
 * (random port). `gateway-process.ts [postgres URL | data directory]`: without an argument it
 * runs on an embedded in-memory PGlite store (like test/support/test-app.ts); with a postgres://
 * URL, on that database; with a directory, on the embedded default (PGlite on disk in that
 * DATA_DIR, opened the way `npm start` opens it).
 * Without a directory (in memory, or on Postgres) it still gets a DATA_DIR of its own (a fresh
 * temporary one, removed when it stops): the local audit log and key files live there, so runs
 * never share a log (two bench gateways on the default DATA_DIR would collide on its lock) nor
 * replay an earlier run's.
 * Prints {"url": "...", "adminKey": "..."} once listening; stops on SIGTERM.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { createApp } from "../dataplane/app/create-app.js";
import { memoryBroadcast } from "../dataplane/broadcast/broadcast.js";
import { loadConfig } from "../dataplane/config/config.js";
import { generateApiKey } from "../dataplane/core/api-key-format.js";
import { openPglite } from "../dataplane/store/pglite-database.js";
import { announceReady } from "./processes/child-control.js";

const argument = process.argv[2];
const databaseUrl = argument?.startsWith("postgres") ? argument : undefined;
const givenDataDir = argument !== undefined && databaseUrl === undefined ? argument : undefined;
const tempDataDir =
  givenDataDir === undefined ? await mkdtemp(join(tmpdir(), "evident-bench-gateway-")) : undefined;
const adminKey = generateApiKey();
const config = loadConfig({
  LOG_LEVEL: "silent",
  EVIDENT_ADMIN_KEY: adminKey,
  DATA_DIR: givenDataDir ?? tempDataDir ?? "",
  ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  // Diagnostic (scripts/memory-probe.ts): the embedded store's worker logs its memory.
  PGLITE_MEMORY_LOG_SECS: process.env.PGLITE_MEMORY_LOG_SECS ?? "0",
});
const stores =
  databaseUrl || givenDataDir
    ? undefined
    : { db: await openPglite(undefined), redis: undefined, broadcast: memoryBroadcast() };
const app = await createApp(config, { logger: pino({ level: "silent" }), stores });
await app.http.listen({ port: 0, host: "127.0.0.1" });
const address = app.http.server.address();
const port = typeof address === "object" && address ? address.port : 0;
announceReady({ url: `http://127.0.0.1:${port}`, adminKey }, async () => {
  await app.close();
  await stores?.db.close();
  if (tempDataDir !== undefined) await rm(tempDataDir, { recursive: true, force: true });
});

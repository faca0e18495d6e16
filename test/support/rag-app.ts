import { manualClock } from "../../dataplane/core/clock.js";
import { freshPostgresUrl } from "./databases.js";
import { startTestApp } from "./test-app.js";

/** A gateway for RAG tests on PGlite or a fresh Postgres database, with a manual clock. */
export async function ragGateway(backend: string, env: Record<string, string> = {}) {
  const fresh = backend === "postgres" ? await freshPostgresUrl() : undefined;
  const clock = manualClock(Date.parse("2026-11-23T12:00:00Z"));
  const gw = await startTestApp({
    clock,
    env: { ...(fresh ? { DATABASE_URL: fresh.url } : {}), ...env },
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

/** A multipart upload of one file part (and optional metadata JSON). */
export async function uploadFile(
  base: string,
  key: string,
  collectionId: string,
  file: { bytes: Buffer; name: string; type: string },
  metadata?: unknown,
) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  if (metadata !== undefined) form.append("metadata", JSON.stringify(metadata));
  const res = await fetch(`${base}/api/v1/rag/collections/${collectionId}/documents`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

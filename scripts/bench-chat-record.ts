import type { PendingAuditRecord } from "../dataplane/store/audit-repository.js";

/**
 * An audit record like the bench's JSON chat call's (default content mode: no content), with the
 * given ids (each tree compared makes them with its own generators). For the ingestion scripts.
 */
export function benchChatRecord(id: string, requestId: string): PendingAuditRecord {
  return {
    fields: {
      id,
      customer_id: "default",
      occurred_at: new Date().toISOString(),
      kind: "inference",
      request_id: requestId,
      key_id: "key_DKeZ4OvFItI76e1KBR5c00bc",
      action: "chat.completions",
      subject: "bench-chat",
      model: "bench-chat",
      backend: "dep_K4GkHgJpNtIyVwIanVZgj5Zd",
      route: {
        model_version: "1",
        candidates: ["dep_K4GkHgJpNtIyVwIanVZgj5Zd"],
        chosen: "dep_K4GkHgJpNtIyVwIanVZgj5Zd",
      },
      classification: "public",
      verdicts: [],
      usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12, source: "upstream" },
      cost_usd: 0.000017,
      latency_ms: 3,
      status: 200,
      error_code: null,
      outcome: "completed",
      request_sha256: "16fbd4f0f10453570e7d88cf2203be0faa9b7114e366a3225c579bd48abb9592",
      response_sha256: "e46bdac7d5bdbbaef4989aa21778bef5a6def358c8c111f36d25c4fbccfb701a",
      content_sha256: null,
      details: null,
    },
    content: null,
  };
}

/**
 * The gateway behind its ext_proc gRPC server with the Envoy test double connected, a fake
 * upstream and a customer key: the setup of the ext_proc exchange tests.
 */
import type { TestFn } from "ava";
import { startGrpcServer, type GrpcServer } from "../../dataplane/adapters/grpc/start-grpc.js";
import { connectEnvoy, type EnvoyClients } from "../fakes/envoy-round-trip.js";
import { startFakeUpstream, type FakeUpstream } from "../fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./inference-fixture.js";
import { call, startTestApp, type RunningApp } from "./test-app.js";

export interface ExtProcRig {
  gateway: RunningApp;
  upstream: FakeUpstream;
  grpc: GrpcServer;
  envoy: EnvoyClients;
  key: string;
}

/** Models `proc-model` and `proc-premium` (enterprise tier) and a `pro` customer's key. */
async function startExtProcRig(): Promise<ExtProcRig> {
  const upstream = await startFakeUpstream();
  const gateway = await startTestApp();
  const grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  const envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "proc-model" }, upstream.url);
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "proc-premium", required_tier: "enterprise" },
    upstream.url,
  );
  const key = await customerKey(gateway.url, gateway.adminKey, "pro");
  return { gateway, upstream, grpc, envoy, key };
}

async function closeExtProcRig(rig: ExtProcRig | undefined): Promise<void> {
  rig?.envoy.close();
  await rig?.grpc.close();
  await rig?.gateway.close();
  await rig?.upstream.close();
}

export interface AuditRow {
  outcome: string;
  status: number;
  error_code: string | null;
  model: string | null;
  usage: { total_tokens: number } | null;
}

async function auditRecordsOf(rig: ExtProcRig, requestId: string): Promise<AuditRow[]> {
  const res = await call(
    rig.gateway.url,
    "GET",
    `/api/v1/audit/records?request_id=${requestId}`,
    rig.key,
  );
  return res.json.data as AuditRow[];
}

/** The stream's end is handled after the test double returns: poll briefly for the record. */
async function waitForAuditRecords(rig: ExtProcRig, requestId: string): Promise<AuditRow[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const rows = await auditRecordsOf(rig, requestId);
    if (rows.length > 0) return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
  return [];
}

/** A chat completion request as Envoy sends it to ext_proc, with the customer's key. */
function chatRequest(
  key: string,
  requestId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      "x-request-id": requestId,
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

export const messages = [{ role: "user", content: "hello there" }];

/** What a test file reads of its rig. */
export interface ExtProcHandle {
  readonly upstream: FakeUpstream;
  readonly envoy: EnvoyClients;
  chat(
    requestId: string,
    body: Record<string, unknown>,
    headers?: Record<string, string>,
  ): ReturnType<typeof chatRequest>;
  auditOf(requestId: string): Promise<AuditRow[]>;
  waitForRecords(requestId: string): Promise<AuditRow[]>;
}

/** Starts a rig before the file's tests and closes it after them. */
export function useExtProcRig(test: TestFn): ExtProcHandle {
  let rig: ExtProcRig | undefined;
  test.before(async () => {
    rig = await startExtProcRig();
  });
  test.after.always(() => closeExtProcRig(rig));
  const started = (): ExtProcRig => {
    if (rig === undefined) throw new Error("the ext_proc rig is not started");
    return rig;
  };
  return {
    get upstream() {
      return started().upstream;
    },
    get envoy() {
      return started().envoy;
    },
    chat: (requestId, body, headers) => chatRequest(started().key, requestId, body, headers),
    auditOf: (requestId) => auditRecordsOf(started(), requestId),
    waitForRecords: (requestId) => waitForAuditRecords(started(), requestId),
  };
}

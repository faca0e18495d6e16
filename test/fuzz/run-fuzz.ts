import { startGrpcServer } from "../../dataplane/adapters/grpc/start-grpc.js";
import { connectEnvoy } from "../fakes/envoy-client.js";
import { startFakeUpstream } from "../fakes/fake-openai-upstream.js";
import { deployModel } from "../support/inference-fixture.js";
import { startTestApp } from "../support/test-app.js";
import {
  checkAuditRecords,
  checkAuditStillMoving,
  newReport,
  settledHeapBytes,
  type FuzzReport,
} from "./fuzz-invariants.js";
import { fuzzOperations } from "./fuzz-operations.js";
import { fuzzEnvoy, fuzzRawBodies } from "./fuzz-raw-targets.js";
import type { OpenApiDocument } from "./schema-arbitrary.js";

export interface FuzzOptions {
  seed: number;
  /** Generated requests per documented operation. */
  runsPerOperation: number;
  /** Raw bodies per compatible route and raw uploads. */
  rawRuns: number;
  /** Messages through the played Envoy. */
  envoyRuns: number;
  /** Rounds of the whole set (the long run repeats to see memory settle). */
  rounds?: number;
}

export interface FuzzResult extends FuzzReport {
  heapBaselineBytes: number;
  heapAfterBytes: number;
  durationMs: number;
}

/**
 * One fuzz run against a private data plane (embedded store) with a fake upstream (OpenAI double)
 * and the played Envoy: every documented operation, raw compatible bodies, uploads, ext_authz and
 * ext_proc messages; then the audit and memory invariants.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const started = Date.now();
  const upstream = await startFakeUpstream();
  const app = await startTestApp({ env: { MAX_BODY_BYTES: String(1024 * 1024) } });
  const grpc = await startGrpcServer(app.app.ctx, 0, "127.0.0.1");
  const envoy = connectEnvoy(`127.0.0.1:${grpc?.port ?? 0}`);
  const report = newReport();
  try {
    await deployModel(app.url, app.adminKey, { name: "fuzz-model" }, upstream.url);
    const docRes = await fetch(`${app.url}/openapi.json`, {
      headers: { authorization: `Bearer ${app.adminKey}` },
    });
    const doc = (await docRes.json()) as OpenApiDocument;
    const target = { url: app.url, adminKey: app.adminKey };
    const heapBaselineBytes = settledHeapBytes();
    for (let round = 0; round < (options.rounds ?? 1); round++) {
      const seed = options.seed + round * 7919;
      await fuzzOperations(target, doc, report, {
        runsPerOperation: options.runsPerOperation,
        seed,
        knownModel: "fuzz-model",
      });
      await fuzzRawBodies(target, report, { runs: options.rawRuns, seed });
      await fuzzEnvoy(envoy, app.adminKey, report, { runs: options.envoyRuns, seed });
    }
    await checkAuditRecords(report, app.url, app.adminKey);
    await checkAuditStillMoving(report, app.url, app.adminKey);
    const heapAfterBytes = settledHeapBytes();
    return { ...report, heapBaselineBytes, heapAfterBytes, durationMs: Date.now() - started };
  } finally {
    envoy.close();
    await grpc?.close();
    await app.close();
    await upstream.close();
  }
}

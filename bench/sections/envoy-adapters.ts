/**
 * The Envoy adapters, driven by the test double that plays Envoy with the real protos: Check
 * round trips per second and added latency (headers only), and ext_proc's cost per request for a
 * JSON body and for a 20-chunk stream (admit, guardrails, metering and the audit record; no
 * backend time: the double plays the backend's answers).
 */
import { startGrpcServer } from "../../dataplane/adapters/grpc/start-grpc.js";
import { measureEnvoyAdapters } from "../../test/fakes/envoy-bench.js";
import { customerKey, deployModel } from "../../test/support/inference-fixture.js";
import { startTestApp } from "../../test/support/test-app.js";
import type { Section, SectionReport } from "./section.js";

export const envoyAdaptersSection: Section = {
  name: "Envoy adapters (ext_authz Check, ext_proc), in process",
  async run({ log }): Promise<SectionReport> {
    const app = await startTestApp();
    const grpc = await startGrpcServer(app.app.ctx, 0, "127.0.0.1");
    try {
      if (!grpc) throw new Error("the gRPC server did not start");
      await deployModel(app.url, app.adminKey, { name: "bench-model" }, "http://127.0.0.1:9/v1");
      const key = await customerKey(app.url, app.adminKey, "enterprise");
      log("envoy: Check and ext_proc");
      const r = await measureEnvoyAdapters({
        address: `127.0.0.1:${grpc.port}`,
        key,
        model: "bench-model",
      });
      return {
        name: this.name,
        table: [
          ["measure", "p50 ms", "p99 ms", "other"],
          [
            "Check (headers only), one at a time",
            String(r.check.p50Ms),
            String(r.check.p99Ms),
            `${Math.round(r.check.roundTripsPerSecond)} round trips/s at ${r.check.concurrency} callers`,
          ],
          [
            "ext_proc, JSON body",
            String(r.extProcJson.p50Ms),
            String(r.extProcJson.p99Ms),
            `${r.extProcJson.requests} requests`,
          ],
          [
            "ext_proc, 20-chunk stream",
            String(r.extProcStream20.p50Ms),
            String(r.extProcStream20.p99Ms),
            `${r.extProcStream20.requests} requests`,
          ],
        ],
        ratios: {
          check_round_trips_per_s: r.check.roundTripsPerSecond,
          check_p50_ms: r.check.p50Ms,
          ext_proc_json_p50_ms: r.extProcJson.p50Ms,
          ext_proc_stream20_p50_ms: r.extProcStream20.p50Ms,
        },
        targets: [],
        notes: ["The test double and the data plane share this process and the machine's 2 cores."],
        data: r,
      };
    } finally {
      await grpc?.close();
      await app.close();
    }
  },
};

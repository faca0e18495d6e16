/**
 * Runs measureEnvoyAdapters against an in-process data plane (embedded database, no backend
 * needed: the test double plays the backend's answers). `npx tsx test/fakes/envoy-bench-run.ts`
 */
import { startGrpcServer } from "../../dataplane/adapters/grpc/start-grpc.js";
import { customerKey, deployModel } from "../support/inference-fixture.js";
import { startTestApp } from "../support/test-app.js";
import { measureEnvoyAdapters } from "./envoy-bench.js";

const app = await startTestApp();
const grpc = await startGrpcServer(app.app.ctx, 0, "127.0.0.1");
try {
  if (grpc === undefined) throw new Error("gRPC server did not start");
  await deployModel(app.url, app.adminKey, { name: "bench-model" }, "http://127.0.0.1:9/v1");
  const key = await customerKey(app.url, app.adminKey, "enterprise");
  const result = await measureEnvoyAdapters({
    address: `127.0.0.1:${grpc.port}`,
    key,
    model: "bench-model",
  });
  console.log(JSON.stringify(result, null, 2));
} finally {
  await grpc?.close();
  await app.close();
}

/**
 * "Envoy plays" test double: Envoy cannot be installed here, so tests of the ext_authz and ext_proc
 * adapters talk to them through grpc-js clients generated from Envoy's own protos (proto/gen/),
 * sending the message sequences Envoy sends and applying the answers the way Envoy does.
 *
 *   const envoy = connectEnvoy(address);
 *   const outcome = await sendCheck(envoy.authorization, { method: "POST", path: "/v1/chat/completions", headers });
 *   const session = new ExtProcSession(envoy.externalProcessor, request);
 *   await session.requestHeaders(); await session.requestBody(body, { endOfStream: true }); ...
 *   envoy.close();
 */
import { credentials } from "@grpc/grpc-js";
import { AuthorizationClient } from "../../proto/gen/envoy/service/auth/v3/external_auth.js";
import { ExternalProcessorClient } from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";

export {
  buildCheckRequest,
  type CallerResponse,
  type CheckOutcome,
  envoyRequestHeaders,
  type HttpRequestDescription,
  sendCheck,
  type SendCheckOptions,
} from "./envoy-ext-authz.js";
export { ExtProcSession } from "./envoy-ext-proc.js";
export type {
  ExtProcSessionOptions,
  Phase,
  PhaseResult,
  StreamEnd,
} from "./envoy-ext-proc-phases.js";
export type { BodyMode, HttpMessageState, LocalReply } from "./envoy-ext-proc-mutations.js";
export {
  type HeaderEncoding,
  type HeaderInput,
  type HeaderList,
  headerValue,
  headerValues,
} from "./envoy-headers.js";

export interface EnvoyClients {
  authorization: AuthorizationClient;
  externalProcessor: ExternalProcessorClient;
  close(): void;
}

/** Clients for a data plane's gRPC port, e.g. "127.0.0.1:9090" (plaintext, as Envoy's cluster). */
export function connectEnvoy(address: string): EnvoyClients {
  const authorization = new AuthorizationClient(address, credentials.createInsecure());
  const externalProcessor = new ExternalProcessorClient(address, credentials.createInsecure());
  return {
    authorization,
    externalProcessor,
    close() {
      authorization.close();
      externalProcessor.close();
    },
  };
}

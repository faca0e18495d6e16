import { Server, ServerCredentials, type ServerDuplexStream } from "@grpc/grpc-js";
import {
  AuthorizationService,
  type AuthorizationServer,
} from "../../../proto/gen/envoy/service/auth/v3/external_auth.js";
import {
  ExternalProcessorService,
  type ExternalProcessorServer,
  type ProcessingRequest,
  type ProcessingResponse,
} from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import type { AppContext } from "../../app/context.js";
import { authorizationCheck } from "../extauthz/authorization-check.js";
import { ProcessExchange } from "../extproc/process-exchange.js";
import { DEFAULT_ENVOY_OPTIONS, type EnvoyAdapterOptions } from "./envoy-options.js";

/** The Envoy ext_authz / ext_proc gRPC services on GRPC_PORT. */
export interface GrpcServer {
  port: number;
  close(): Promise<void>;
}

/** Serves Authorization/Check and ExternalProcessor/Process on the same core as REST. */
export async function startGrpcServer(
  ctx: AppContext,
  port: number,
  host: string,
  options: Partial<EnvoyAdapterOptions> = {},
): Promise<GrpcServer | undefined> {
  const settings: EnvoyAdapterOptions = { ...DEFAULT_ENVOY_OPTIONS, ...options };
  const server = new Server();
  const authorization: AuthorizationServer = {
    check: (call, callback) => {
      authorizationCheck(ctx, settings, call.request).then(
        (response) => callback(null, response),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    },
  };
  const externalProcessor: ExternalProcessorServer = {
    process: (stream) => serveProcessStream(ctx, settings, stream),
  };
  server.addService(AuthorizationService, authorization);
  server.addService(ExternalProcessorService, externalProcessor);
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 2000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}

/**
 * One ext_proc stream: messages are answered one at a time, in order (Envoy may send the next
 * body chunk before the previous answer). The stream is closed after an immediate response, and
 * when Envoy half-closes; a reset finishes the call as client_aborted.
 */
function serveProcessStream(
  ctx: AppContext,
  settings: EnvoyAdapterOptions,
  stream: ServerDuplexStream<ProcessingRequest, ProcessingResponse>,
): void {
  const exchange = new ProcessExchange(ctx, settings);
  let queue: Promise<void> = Promise.resolve();
  let ended = false;
  const close = () => {
    if (ended) return;
    ended = true;
    stream.end();
  };
  const enqueue = (work: () => Promise<void>) => {
    queue = queue.then(work).catch((err: unknown) => {
      ctx.logger.error({ err: String(err) }, "ext_proc stream handling failed");
    });
  };
  stream.on("data", (message: ProcessingRequest) => {
    enqueue(async () => {
      const answer = await exchange.handle(message);
      if (ended || stream.cancelled) return;
      if (answer !== undefined) stream.write(answer);
      if (exchange.done) close();
    });
  });
  stream.on("end", () => {
    enqueue(async () => {
      // grpc-js ends the readable side of a reset stream too, just before "cancelled".
      await new Promise<void>((resolve) => setImmediate(resolve));
      await exchange.streamEnded(stream.cancelled ? "reset" : "end");
      close();
    });
  });
  stream.on("cancelled", () => {
    ended = true;
    enqueue(() => exchange.streamEnded("reset"));
  });
  stream.on("error", () => {
    ended = true;
    enqueue(() => exchange.streamEnded("reset"));
  });
}

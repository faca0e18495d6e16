import type { AppContext } from "../../app/context.js";

/** The Envoy ext_authz / ext_proc gRPC services on GRPC_PORT. */
export interface GrpcServer {
  port: number;
  close(): Promise<void>;
}

export async function startGrpcServer(
  _ctx: AppContext,
  _port: number,
  _host: string,
): Promise<GrpcServer | undefined> {
  return undefined;
}

/**
 * Test double: the data plane's native REST API over HTTP, serving MemoryNativeApi with the wire
 * contract of operator/native/native-api.ts (snake_case JSON, {error:{message,type,code}}
 * envelopes, Bearer admin key). The lead's end-to-end test replaces it with the real data plane.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorEnvelope, GatewayError, toGatewayError } from "../../dataplane/core/errors.js";
import { MemoryNativeApi } from "./memory-native-api.js";

export class FakeNativeApiServer {
  readonly api = new MemoryNativeApi();
  /** "METHOD /path" of every request. */
  readonly requests: string[] = [];
  private server: Server | undefined;

  constructor(private readonly adminKey: string) {}

  url = "";

  async start(): Promise<void> {
    const server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = request.method ?? "GET";
    const url = new URL(request.url ?? "/", "http://fake");
    this.requests.push(`${method} ${url.pathname}`);
    try {
      if (request.headers.authorization !== `Bearer ${this.adminKey}`) {
        throw new GatewayError("invalid_api_key", "invalid API key");
      }
      const body = method === "POST" || method === "PATCH" ? await readJson(request) : undefined;
      const [status, result] = await this.dispatch(method, url, body);
      if (result === undefined) response.writeHead(status).end();
      else
        response
          .writeHead(status, { "content-type": "application/json" })
          .end(JSON.stringify(result));
    } catch (err) {
      const error = toGatewayError(err);
      response
        .writeHead(error.status, { "content-type": "application/json" })
        .end(JSON.stringify(errorEnvelope(error)));
    }
  }

  private async dispatch(method: string, url: URL, body: unknown): Promise<[number, unknown]> {
    const api = this.api;
    const parts = url.pathname
      .replace(/^\/api\/v1\//, "")
      .split("/")
      .map(decodeURIComponent);
    const [collection, id] =
      parts[0] === "guardrails" || parts[0] === "audit"
        ? [`${parts[0]}/${parts[1]}`, parts[2]]
        : [parts[0], parts[1]];
    const found = <T>(item: T | undefined): T => {
      if (item === undefined)
        throw new GatewayError("resource_not_found", `${collection}/${id} not found`);
      return item;
    };
    const input = body as never;
    switch (`${method} ${collection}${id === undefined ? "" : "/:id"}`) {
      case "POST models":
        return [201, await api.models.create(input)];
      case "GET models": {
        const name = url.searchParams.get("name");
        return [
          200,
          { data: [...api.modelStore.values()].filter((m) => name === null || m.name === name) },
        ];
      }
      case "GET models/:id":
        return [200, found(await api.models.get(id ?? ""))];
      case "PATCH models/:id":
        return [200, await api.models.patch(id ?? "", input)];
      case "DELETE models/:id":
        found(api.modelStore.get(id ?? ""));
        await api.models.delete(id ?? "");
        return [200, await api.models.get(id ?? "")];
      case "POST deployments":
        return [201, await api.deployments.create(input)];
      case "GET deployments/:id":
        return [200, found(await api.deployments.get(id ?? ""))];
      case "PATCH deployments/:id":
        return [200, await api.deployments.patch(id ?? "", input)];
      case "DELETE deployments/:id":
        found(api.deploymentStore.get(id ?? ""));
        await api.deployments.delete(id ?? "");
        return [200, await api.deployments.get(id ?? "")];
      case "POST routes":
        return [201, await api.routes.create(input)];
      case "GET routes/:id":
        return [200, found(await api.routes.get(id ?? ""))];
      case "PATCH routes/:id":
        return [200, await api.routes.patch(id ?? "", input)];
      case "DELETE routes/:id":
        found(api.routeStore.get(id ?? ""));
        return [204, await api.routes.delete(id ?? "")];
      case "POST guardrails/rules":
        return [201, await api.guardrailRules.create(input)];
      case "GET guardrails/rules/:id":
        return [200, found(await api.guardrailRules.get(id ?? ""))];
      case "PATCH guardrails/rules/:id":
        return [200, await api.guardrailRules.patch(id ?? "", input)];
      case "DELETE guardrails/rules/:id":
        found(api.ruleStore.get(id ?? ""));
        return [204, await api.guardrailRules.delete(id ?? "")];
      case "POST audit/legal-hold":
        if (typeof body === "object" && body !== null && "customer_id" in body) {
          throw new GatewayError(
            "validation_failed",
            "unknown field customer_id; use the customer_id query parameter",
          );
        }
        return [
          201,
          await api.legalHolds.create({
            ...(body as object),
            customer_id: customerQuery(url),
          } as never),
        ];
      case "GET audit/legal-hold":
        return [
          200,
          { object: "list", data: await api.legalHolds.list(customerQuery(url)), has_more: false },
        ];
      case "DELETE audit/legal-hold/:id":
        found(api.holdStore.get(id ?? ""));
        return [204, await api.legalHolds.delete(id ?? "")];
      default:
        throw new GatewayError("resource_not_found", `no route ${method} ${url.pathname}`);
    }
  }
}

/** Legal holds act for the customer named in the query (default: the key's own). */
function customerQuery(url: URL): string {
  return url.searchParams.get("customer_id") ?? "default";
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new GatewayError("invalid_json", "body is not JSON");
  }
}

import net from "node:net";
import test from "ava";
import { useRealtimeGateway } from "./support/realtime-gateway.js";
import { call } from "./support/test-app.js";
import { within } from "./support/within.js";

const rig = useRealtimeGateway(test);

function upgradeRequest(
  overrides: Record<string, string | undefined> = {},
  method = "GET",
): string {
  const headers: Record<string, string | undefined> = {
    Host: "127.0.0.1",
    Authorization: `Bearer ${rig.key}`,
    Connection: "Upgrade",
    Upgrade: "websocket",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    ...overrides,
  };
  const lines = Object.entries(headers)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([k, v]) => `${k}: ${v}`);
  return [`${method} /v1/realtime?model=rt-model HTTP/1.1`, ...lines, "", ""].join("\r\n");
}

/**
 * Sends `text` on a fresh connection; resolves with what came back once the socket closed. With
 * `hangUp`, the client closes its side (FIN) right after sending, as a client that gives up does.
 */
function exchange(text: string, hangUp = false): Promise<string> {
  const { port } = new URL(rig.gateway.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.write(text, () => {
      if (hangUp) socket.end();
    });
  });
}

/** The error of the envelope in a raw HTTP answer's body. */
function envelopeError(answer: string): { code: string; type: string; message: string } {
  const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
  return (JSON.parse(body) as { error: { code: string; type: string; message: string } }).error;
}

test.serial(
  "a malformed WebSocket handshake is refused in the envelope before any backend is dialled",
  async (t) => {
    rig.reset();
    const dialled = rig.backend.connections();
    const cases = [
      { request: upgradeRequest({ "Sec-WebSocket-Key": "not-a-key" }), status: 400 },
      { request: upgradeRequest({ "Sec-WebSocket-Key": undefined }), status: 400 },
      { request: upgradeRequest({ "Sec-WebSocket-Version": "12" }), status: 400 },
      { request: upgradeRequest({ Upgrade: "h2c" }), status: 400 },
      { request: upgradeRequest({}, "POST"), status: 405 },
    ];
    for (const { request, status } of cases) {
      const answer = await exchange(request);
      t.regex(answer, new RegExp(`^HTTP/1\\.1 ${status} `));
      t.regex(answer, /x-request-id: req_/i);
      const error = envelopeError(answer);
      t.is(error.code, status === 405 ? "method_not_allowed" : "invalid_request");
      t.is(error.type, "invalid_request_error");
    }
    t.is(rig.backend.connections(), dialled, "no backend session was opened");
  },
);

test.serial(
  "clients that hang up in the middle of the upgrade leave no backend session open",
  async (t) => {
    rig.reset();
    const dialled = rig.backend.connections();
    const open = rig.backend.open();
    await Promise.all(Array.from({ length: 20 }, () => exchange(upgradeRequest(), true)));
    t.true(
      await within(10_000, async () => rig.backend.open() === open),
      "every backend session the gateway opened for them is closed",
    );
    // Not vacuous: the gateway did dial the backend for some of them before it saw them go.
    t.true(rig.backend.connections() > dialled);
    // Each such session is still on the record, as the client's abort.
    t.true(
      await within(10_000, async () => {
        const res = await call(rig.gateway.url, "GET", "/api/v1/audit/records?limit=100", rig.key);
        const records = (res.json.data ?? []) as {
          outcome: string;
          details: { realtime?: { kind: string } } | null;
        }[];
        const aborted = records.filter(
          (r) => r.details?.realtime?.kind === "session" && r.outcome === "client_aborted",
        );
        return aborted.length >= rig.backend.connections() - dialled;
      }),
    );
  },
);

test.serial(
  "a handshake only the WebSocket server refuses (an unparsable subprotocol list) is answered in the envelope, and its backend session closed",
  async (t) => {
    rig.reset();
    const dialled = rig.backend.connections();
    const open = rig.backend.open();
    const answer = await exchange(
      upgradeRequest({ "Sec-WebSocket-Protocol": "realtime, realtime" }),
    );
    t.regex(answer, /^HTTP\/1\.1 400 /);
    t.regex(answer, /x-request-id: req_/i);
    const error = envelopeError(answer);
    t.is(error.code, "invalid_request");
    t.regex(error.message, /Sec-WebSocket-Protocol/);
    // The gateway had admitted the session and dialled the backend: that session is closed.
    t.is(rig.backend.connections(), dialled + 1);
    t.true(await within(10_000, async () => rig.backend.open() === open));
  },
);

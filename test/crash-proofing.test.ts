import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import test from "ava";
import { generateApiKey } from "../dataplane/core/api-key-format.js";
import { startDataplaneProcess, type DataplaneProcess } from "./support/dataplane-process.js";
import { within } from "./support/within.js";

const adminKey = generateApiKey();
let proc: DataplaneProcess;
let port: number;
let dataDir: string;

test.before(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "evident-crash-"));
  await mkdir(path.join(dataDir, "tmp"));
  proc = startDataplaneProcess({
    DATA_DIR: dataDir,
    EVIDENT_ADMIN_KEY: adminKey,
    TMPDIR: path.join(dataDir, "tmp"),
    // Far beyond any wait below: an upload left hanging is not cleaned up by the body deadline.
    REQUEST_BODY_TIMEOUT_MS: "600000",
  });
  port = await proc.port;
});
test.after.always(async () => {
  await proc?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** Sends raw bytes on a fresh connection; resolves with whatever came back when the socket ends. */
function raw(
  bytes: Buffer | string,
  options: { destroyAfterWrite?: boolean } = {},
): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.write(bytes, () => {
      if (options.destroyAfterWrite) socket.destroy();
    });
  });
}

function uploadHead(
  contentLength: number,
  boundary: string,
  route = "/v1/audio/transcriptions",
): string {
  return [
    `POST ${route} HTTP/1.1`,
    "Host: 127.0.0.1",
    `Authorization: Bearer ${adminKey}`,
    `Content-Type: multipart/form-data; boundary=${boundary}`,
    `Content-Length: ${contentLength}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
}

async function stillServing(t: import("ava").ExecutionContext): Promise<void> {
  t.is(proc.child.exitCode, null, "the process is still running");
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  t.is(res.status, 200);
  const escapedLines = proc
    .output()
    .split("\n")
    .filter((line) => /unhandled|escaped its handler/i.test(line));
  t.deepEqual(escapedLines, [], "no error escaped its handler");
}

test.serial(
  "a truncated multipart body with a correct Content-Length is a 400, not a crash",
  async (t) => {
    const boundary = "XyZboundary";
    const body =
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
      `Content-Type: audio/wav\r\n\r\n${"A".repeat(20_000)}`; // no closing boundary
    const answer = await raw(uploadHead(Buffer.byteLength(body), boundary) + body);
    t.regex(answer, /^HTTP\/1\.1 400/);
    t.regex(answer, /x-request-id: /i);
    t.regex(answer, /"code":"invalid_request"/);
    await stillServing(t);
  },
);

test.serial(
  "a client that disconnects in the middle of an upload does not end the process",
  async (t) => {
    const boundary = "AbCboundary";
    const head =
      uploadHead(3_000_000, boundary) +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
      `Content-Type: audio/wav\r\n\r\n`;
    for (let i = 0; i < 3; i++) {
      await raw(Buffer.concat([Buffer.from(head), Buffer.alloc(200_000, 7)]), {
        destroyAfterWrite: true,
      });
    }
    // The server notices the disconnects asynchronously: wait until it saw them and removed the
    // partial uploads.
    const aborted = () => (proc.output().match(/request aborted by the client/g) ?? []).length;
    t.true(await within(30_000, async () => aborted() >= 3));
    const tmp = path.join(dataDir, "tmp");
    t.true(
      await within(
        30_000,
        async () => !(await readdir(tmp)).some((f) => f.startsWith("evident-upload-")),
      ),
    );
    await stillServing(t);
  },
);

/** Sends each of `messages` on its own connection, dropped once written; resolves when all closed. */
async function sendAndDrop(messages: (Buffer | string)[]): Promise<void> {
  await Promise.all(messages.map((m) => raw(m, { destroyAfterWrite: true })));
}

/** Upload directories still in the gateway's temporary directory. */
async function partialUploads(): Promise<string[]> {
  return (await readdir(path.join(dataDir, "tmp"))).filter((f) => f.startsWith("evident-upload-"));
}

test.serial(
  "clients gone right after an upload's headers, before its handler reads the body, end nothing and leave no partial upload",
  async (t) => {
    const boundary = "QrSboundary";
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`;
    const messages: string[] = [];
    for (const route of ["/v1/audio/transcriptions", "/v1/files"])
      for (let i = 0; i < 10; i++) {
        const head = uploadHead(3_000_000, boundary, route);
        messages.push(head, head + part, head + part + "x".repeat(1000));
      }
    await sendAndDrop(messages);
    // The body deadline is 10 minutes here: only noticing the disconnect removes these in time.
    t.true(
      await within(10_000, async () => (await partialUploads()).length === 0),
      "every partial upload is removed",
    );
    await stillServing(t);
  },
);

test.serial(
  "a client gone in the middle of a JSON body is a client's disconnect, not an internal error",
  async (t) => {
    const head = [
      "POST /v1/chat/completions HTTP/1.1",
      "Host: 127.0.0.1",
      `Authorization: Bearer ${adminKey}`,
      "Content-Type: application/json",
      "Content-Length: 100000",
      "",
      "",
    ].join("\r\n");
    const before = (proc.output().match(/request aborted by the client/g) ?? []).length;
    await sendAndDrop(
      Array.from(
        { length: 10 },
        () => head + '{"model":"m","messages":[{"role":"user","content":"',
      ),
    );
    t.true(
      await within(
        10_000,
        async () =>
          (proc.output().match(/request aborted by the client/g) ?? []).length >= before + 10,
      ),
    );
    await stillServing(t);
  },
);

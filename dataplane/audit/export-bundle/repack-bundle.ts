/** Test helpers: open a bundle, change it as a tamperer would, and pack it again; run the verifier. */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import tar from "tar-stream";

/** The files of a tar.gz, in archive order. */
export async function readBundle(path: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const extract = tar.extract();
  const reading = pipeline(createReadStream(path), createGunzip(), extract);
  for await (const entry of extract) {
    const parts: Buffer[] = [];
    for await (const part of entry) parts.push(part as Buffer);
    files.set(entry.header.name, Buffer.concat(parts));
  }
  await reading;
  return files;
}

export async function writeBundle(path: string, files: ReadonlyMap<string, Buffer>): Promise<void> {
  const pack = tar.pack();
  const writing = pipeline(pack, createGzip(), createWriteStream(path));
  for (const [name, data] of files) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name, size: data.length }, data, (e) => (e ? reject(e) : resolve())),
    );
  }
  pack.finalize();
  await writing;
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** What a tamperer with no signing key can do: make manifest.json and SHA256SUMS match the files. */
export function resealDigests(files: Map<string, Buffer>): void {
  const manifestFile = files.get("manifest.json");
  if (manifestFile === undefined) throw new Error("no manifest.json");
  const manifest = JSON.parse(manifestFile.toString()) as {
    files: Record<string, { sha256: string; size: number }>;
  };
  for (const name of Object.keys(manifest.files)) {
    const data = files.get(name);
    if (data !== undefined) manifest.files[name] = { sha256: sha256(data), size: data.length };
  }
  files.set("manifest.json", Buffer.from(JSON.stringify(manifest, null, 2)));
  const sums = [...files.entries()]
    .filter(([name]) => name !== "SHA256SUMS")
    .map(([name, data]) => `${sha256(data)}  ${name}\n`)
    .join("");
  files.set("SHA256SUMS", Buffer.from(sums));
}

export interface VerifierRun {
  code: number | null;
  report: {
    ok: boolean;
    files_ok: boolean;
    chain_ok: boolean;
    records: number;
    first_seq?: number | null;
    last_seq?: number | null;
    first_broken: { seq: number; reason: string } | null;
    checkpoints_ok: boolean;
    checkpointed_through?: number | null;
    manifest_ok?: boolean;
    file_errors?: { file: string; reason: string }[];
    anchor?: { seq: number; attested: boolean };
    error?: string;
    public_key_sha256?: string | null;
  };
}

/** Runs scripts/verify-evidence-bundle.mjs in its own Node process, as an auditor would. */
export async function runVerifier(bundlePath: string): Promise<VerifierRun> {
  const root = process.cwd();
  const child = spawn(
    join(root, "node_modules/.bin/node"),
    [join(root, "scripts/verify-evidence-bundle.mjs"), bundlePath],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  return { code, report: JSON.parse(out) as VerifierRun["report"] };
}

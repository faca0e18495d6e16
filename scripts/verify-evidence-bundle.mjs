#!/usr/bin/env node
// Independent verifier for Evident evidence bundles (docs/evidence-bundle.md).
//
//   node scripts/verify-evidence-bundle.mjs bundle.tar.gz
//
// Uses only Node built-ins and imports nothing from the Evident code base, so it checks the
// implementation rather than repeating it. Reads the tar.gz twice, streaming: pass 1 hashes every
// file and keeps the small ones; pass 2 re-verifies records.jsonl line by line. Prints a JSON report
// and exits 0 when everything checks, 1 when something does not, 2 on a usage error.
import { Buffer } from "node:buffer";
import console from "node:console";
import { createHash, createPublicKey, verify } from "node:crypto";
import { createReadStream } from "node:fs";
import process from "node:process";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";

const BLOCK = 512;
const GENESIS_HASH = "0".repeat(64);
const RECORDS = "records.jsonl";
const REQUIRED = [
  "manifest.json",
  "SHA256SUMS",
  RECORDS,
  "checkpoints.json",
  "public-key.pem",
  "policies.json",
  "controls.json",
];
const MAX_SMALL_FILE = 64 * 1024 * 1024;
const MAX_META_ENTRY = 1024 * 1024;

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

// ---- minimal streaming tar (ustar, pax and GNU long names, base-256 sizes) -----------------------

function cstring(block, start, length) {
  const raw = block.subarray(start, start + length);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul === -1 ? raw.length : nul).toString("utf8");
}

function parseSize(block) {
  if (block[124] & 0x80) {
    let n = 0;
    for (let i = 125; i < 136; i += 1) n = n * 256 + block[i];
    return n;
  }
  const text = cstring(block, 124, 12).trim();
  if (!/^[0-7]*$/.test(text)) throw new Error("tar: bad size field");
  return text === "" ? 0 : parseInt(text, 8);
}

function checksumValid(block) {
  const stored = parseInt(cstring(block, 148, 8).trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return stored === sum;
}

function parsePax(data) {
  const out = {};
  let off = 0;
  while (off < data.length) {
    const space = data.indexOf(0x20, off);
    const length = parseInt(data.subarray(off, space).toString("utf8"), 10);
    if (space === -1 || !(length > 0)) throw new Error("tar: bad pax header");
    const record = data.subarray(space + 1, off + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    out[record.slice(0, eq)] = record.slice(eq + 1);
    off += length;
  }
  return out;
}

/** Streams the tar.gz at `path`; for each regular file calls onFile(name, size) -> sink | null. */
async function readTar(path, onFile) {
  let header = Buffer.alloc(0);
  let remaining = 0;
  let padding = 0;
  let sink = null;
  let meta = null; // collecting a pax ('x') or GNU long name ('L') entry
  let next = {}; // overrides for the next header, from pax / long name
  let zeroBlocks = 0;

  const finishEntry = () => {
    if (meta !== null) {
      const data = Buffer.concat(meta.parts);
      if (meta.type === "x") next = { ...next, ...parsePax(data) };
      if (meta.type === "L") next = { ...next, path: cstring(data, 0, data.length) };
      meta = null;
    } else if (sink !== null) {
      sink.end();
      sink = null;
    }
  };

  const onHeader = (block) => {
    if (block.every((b) => b === 0)) {
      zeroBlocks += 1;
      return;
    }
    if (zeroBlocks > 0) throw new Error("tar: data after an end-of-archive block");
    if (!checksumValid(block)) throw new Error("tar: header checksum mismatch");
    const type = String.fromCharCode(block[156] || 0x30);
    let name = cstring(block, 0, 100);
    // POSIX ustar ("ustar\0") has a name prefix field; old GNU tar ("ustar  ") uses those bytes otherwise.
    const posix = block.subarray(257, 263).toString("latin1") === "ustar\0";
    const prefix = posix ? cstring(block, 345, 155) : "";
    if (prefix !== "") name = `${prefix}/${name}`;
    let size = parseSize(block);
    if (type === "x" || type === "L" || type === "g") {
      if (size > MAX_META_ENTRY) throw new Error("tar: oversized extended header");
      meta = { type, parts: [] };
    } else {
      if (next.path !== undefined) name = next.path;
      if (next.size !== undefined) size = Number(next.size);
      next = {};
      if (type === "5") sink = null;
      else if (type === "0") sink = onFile(name.replace(/^(\.\/)+/, ""), size);
      else throw new Error(`tar: unexpected entry type '${type}' for ${name}`);
    }
    remaining = size;
    padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (remaining === 0) finishEntry();
  };

  await pipeline(createReadStream(path), createGunzip(), async function (chunks) {
    for await (const chunk of chunks) {
      let off = 0;
      while (off < chunk.length) {
        if (remaining > 0) {
          const part = chunk.subarray(off, off + Math.min(remaining, chunk.length - off));
          off += part.length;
          remaining -= part.length;
          if (meta !== null) meta.parts.push(part);
          else if (sink !== null) sink.write(part);
          if (remaining === 0) finishEntry();
        } else if (padding > 0) {
          const skip = Math.min(padding, chunk.length - off);
          off += skip;
          padding -= skip;
        } else if (zeroBlocks >= 2) {
          off = chunk.length; // zero padding after the end of the archive
        } else {
          const take = Math.min(BLOCK - header.length, chunk.length - off);
          header = Buffer.concat([header, chunk.subarray(off, off + take)]);
          off += take;
          if (header.length === BLOCK) {
            const block = header;
            header = Buffer.alloc(0);
            onHeader(block);
          }
        }
      }
    }
  });
  if (remaining > 0 || meta !== null || header.length > 0)
    throw new Error("tar: archive is truncated");
  if (zeroBlocks === 0) throw new Error("tar: no end-of-archive marker");
}

// ---- pass 1: digests of every file, contents of the small ones ----------------------------------

async function readFiles(path) {
  const files = new Map(); // name -> { sha256, size, data (small files only) }
  const duplicates = [];
  await readTar(path, (name, size) => {
    if (files.has(name)) duplicates.push(name);
    const hash = createHash("sha256");
    const parts = name !== RECORDS && size <= MAX_SMALL_FILE ? [] : null;
    return {
      write(part) {
        hash.update(part);
        if (parts !== null) parts.push(part);
      },
      end() {
        files.set(name, {
          sha256: hash.digest("hex"),
          size,
          data: parts === null ? null : Buffer.concat(parts),
        });
      },
    };
  });
  return { files, duplicates };
}

function parseJson(files, name, errors) {
  const f = files.get(name);
  if (f === undefined || f.data === null) return null;
  try {
    return JSON.parse(f.data.toString("utf8"));
  } catch {
    errors.push({ file: name, reason: "malformed" });
    return null;
  }
}

function checkFiles(files, duplicates, manifest, errors) {
  for (const name of duplicates) errors.push({ file: name, reason: "duplicate" });
  for (const name of REQUIRED) if (!files.has(name)) errors.push({ file: name, reason: "missing" });
  const sums = files.get("SHA256SUMS");
  const listed = new Map();
  if (sums !== undefined && sums.data !== null) {
    for (const line of sums.data.toString("utf8").split("\n")) {
      if (line === "") continue;
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
      if (m === null) errors.push({ file: "SHA256SUMS", reason: "malformed" });
      else listed.set(m[2], m[1]);
    }
  }
  for (const [name, digest] of listed) {
    const f = files.get(name);
    if (f === undefined) errors.push({ file: name, reason: "listed_but_missing" });
    else if (f.sha256 !== digest) errors.push({ file: name, reason: "sha256sums_mismatch" });
  }
  const described =
    manifest !== null && typeof manifest.files === "object" && manifest.files !== null
      ? manifest.files
      : {};
  for (const [name, f] of files) {
    if (name !== "SHA256SUMS" && !listed.has(name))
      errors.push({ file: name, reason: "not_in_sha256sums" });
    if (name === "SHA256SUMS" || name === "manifest.json") continue;
    const d = described[name];
    if (d === undefined) errors.push({ file: name, reason: "not_in_manifest" });
    else if (d.sha256 !== f.sha256 || d.size !== f.size)
      errors.push({ file: name, reason: "manifest_digest_mismatch" });
  }
  for (const name of Object.keys(described)) {
    if (!files.has(name)) errors.push({ file: name, reason: "listed_but_missing" });
  }
}

// ---- checkpoints and the chain -------------------------------------------------------------------

/** Canonical JSON: object keys sorted (UTF-16 code units) at every level, no whitespace. */
function canonical(value) {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
}

function ed25519Key(pem) {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === "ed25519" ? key : null;
  } catch {
    return null;
  }
}

function signatureValid(key, message, signature) {
  try {
    return (
      key !== null &&
      verify(null, Buffer.from(message), key, Buffer.from(String(signature), "base64"))
    );
  } catch {
    return false;
  }
}

function assessCheckpoints(checkpoints, key, customerId) {
  return (Array.isArray(checkpoints) ? checkpoints : []).map((c) => {
    const message = `evident-audit-checkpoint:v1:${c.customer_id}:${c.seq}:${c.hash}:${c.created_at}`;
    return {
      seq: c.seq,
      hash: c.hash,
      signature_valid: signatureValid(key, message, c.signature),
      customer_matches: c.customer_id === customerId,
    };
  });
}

async function verifyRecords(path, anchor, trusted, watchSeqs, customerId) {
  const state = {
    prev: anchor.hash,
    expected: anchor.seq + 1,
    records: 0,
    first: null,
    last: null,
    broken: null,
  };
  // A chain that starts at seq 1 starts from the all-zero genesis hash, not from a chosen one.
  if (anchor.seq === 0 && anchor.hash !== GENESIS_HASH)
    state.broken = { seq: 0, reason: "bad_genesis_anchor" };
  const seen = new Map();
  const fail = (seq, reason) => {
    state.broken ??= { seq, reason };
  };
  const onLine = (text) => {
    state.records += 1;
    let r;
    try {
      r = JSON.parse(text);
    } catch {
      r = null;
    }
    if (r === null || typeof r !== "object" || typeof r.seq !== "number")
      return fail(state.expected, "malformed_record");
    state.first ??= r.seq;
    state.last = r.seq;
    if (watchSeqs.has(r.seq)) seen.set(r.seq, r.hash);
    if (state.broken !== null) return;
    if (r.seq !== state.expected) return fail(state.expected, "sequence_gap");
    if (r.fields !== null) {
      if (typeof r.fields !== "object" || r.fields.seq !== r.seq)
        return fail(r.seq, "digest_mismatch");
      if (sha256(canonical(r.fields)) !== r.record_digest) return fail(r.seq, "digest_mismatch");
      if (r.fields.customer_id !== customerId) return fail(r.seq, "foreign_customer");
    }
    if (r.prev_hash !== state.prev) return fail(r.seq, "prev_hash_mismatch");
    if (sha256(`${r.prev_hash}${r.record_digest}`) !== r.hash) return fail(r.seq, "hash_mismatch");
    if (trusted.has(r.seq) && trusted.get(r.seq) !== r.hash)
      return fail(r.seq, "checkpoint_mismatch");
    state.prev = r.hash;
    state.expected += 1;
  };
  let rest = Buffer.alloc(0);
  await readTar(path, (name) => {
    if (name !== RECORDS) return null;
    return {
      write(part) {
        const data = rest.length > 0 ? Buffer.concat([rest, part]) : part;
        let start = 0;
        for (let nl = data.indexOf(0x0a, start); nl !== -1; nl = data.indexOf(0x0a, start)) {
          onLine(data.subarray(start, nl).toString("utf8"));
          start = nl + 1;
        }
        rest = Buffer.from(data.subarray(start));
      },
      end() {
        if (rest.length > 0) onLine(rest.toString("utf8"));
        rest = Buffer.alloc(0);
      },
    };
  });
  return { ...state, seen };
}

// ---- report --------------------------------------------------------------------------------------

async function verifyBundle(path) {
  const { files, duplicates } = await readFiles(path);
  const fileErrors = [];
  const manifest = parseJson(files, "manifest.json", fileErrors);
  const checkpoints = parseJson(files, "checkpoints.json", fileErrors);
  checkFiles(files, duplicates, manifest, fileErrors);
  const customerId = manifest?.customer_id;
  const anchor = manifest?.anchor;
  if (manifest === null || typeof anchor?.seq !== "number" || typeof anchor?.hash !== "string") {
    return {
      ok: false,
      files_ok: false,
      file_errors: fileErrors,
      chain_ok: false,
      records: 0,
      first_broken: null,
      checkpoints_ok: false,
      error: "manifest.json is missing or has no anchor",
    };
  }
  const pem = files.get("public-key.pem")?.data?.toString("utf8") ?? "";
  const key = ed25519Key(pem);
  const assessed = assessCheckpoints(checkpoints, key, customerId);
  const trusted = new Map(
    assessed.filter((c) => c.signature_valid && c.customer_matches).map((c) => [c.seq, c.hash]),
  );
  const chain = await verifyRecords(
    path,
    anchor,
    trusted,
    new Set(assessed.map((c) => c.seq)),
    customerId,
  );

  const statuses = assessed.map((c) => {
    let hashMatches = null;
    if (c.seq === anchor.seq && c.seq > 0) hashMatches = c.hash === anchor.hash;
    else if (chain.first !== null && c.seq >= chain.first && c.seq <= chain.last)
      hashMatches = chain.seen.get(c.seq) === c.hash;
    return { ...c, hash_matches: hashMatches };
  });
  const checkpointsOk =
    Array.isArray(checkpoints) &&
    statuses.every((s) => s.signature_valid && s.customer_matches && s.hash_matches !== false);
  const confirmed = statuses
    .filter((s) => s.signature_valid && s.customer_matches && s.hash_matches === true)
    .map((s) => s.seq);
  const manifestErrors = [];
  if (manifest.record_count !== chain.records) manifestErrors.push("record_count");
  if (manifest.first_seq !== chain.first) manifestErrors.push("first_seq");
  if (manifest.last_seq !== chain.last) manifestErrors.push("last_seq");
  const filesOk = fileErrors.length === 0;
  const chainOk = chain.broken === null;
  return {
    ok: filesOk && chainOk && checkpointsOk && manifestErrors.length === 0,
    files_ok: filesOk,
    chain_ok: chainOk,
    records: chain.records,
    first_seq: chain.first,
    last_seq: chain.last,
    first_broken: chain.broken,
    checkpoints_ok: checkpointsOk,
    checkpointed_through: confirmed.length > 0 ? Math.max(...confirmed) : null,
    anchor: {
      seq: anchor.seq,
      hash: anchor.hash,
      attested: anchor.seq === 0 ? anchor.hash === GENESIS_HASH : confirmed.includes(anchor.seq),
    },
    manifest_ok: manifestErrors.length === 0,
    manifest_errors: manifestErrors,
    file_errors: fileErrors,
    // Compare with the operator's published key: openssl pkey -pubin -outform DER | sha256sum
    public_key_sha256: key === null ? null : sha256(key.export({ type: "spki", format: "der" })),
    checkpoints: statuses,
  };
}

const [path] = process.argv.slice(2);
if (path === undefined || path.startsWith("-")) {
  console.error("usage: node scripts/verify-evidence-bundle.mjs bundle.tar.gz");
  process.exitCode = 2;
} else {
  try {
    const report = await verifyBundle(path);
    console.log(JSON.stringify(report, null, 2));
    process.exitCode = report.ok ? 0 : 1;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.log(
      JSON.stringify(
        {
          ok: false,
          files_ok: false,
          chain_ok: false,
          records: 0,
          first_broken: null,
          checkpoints_ok: false,
          error: message,
        },
        null,
        2,
      ),
    );
    process.exitCode = 1;
  }
}

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkpointMessage } from "./audit-record.js";

export interface Checkpoint {
  customer_id: string;
  seq: number;
  hash: string;
  created_at: string;
  signature: string;
  key_id: string;
}

/** Signs chain checkpoints with Ed25519, so anyone holding the public key can check them. */
export class CheckpointSigner {
  readonly keyId: string;
  readonly publicKeyPem: string;

  constructor(private readonly privateKey: KeyObject) {
    const pub = createPublicKey(privateKey);
    this.publicKeyPem = pub.export({ type: "spki", format: "pem" }).toString();
    this.keyId = createHash("sha256")
      .update(pub.export({ type: "spki", format: "der" }))
      .digest("hex")
      .slice(0, 16);
  }

  sign(c: Omit<Checkpoint, "signature" | "key_id">): Checkpoint {
    const signature = sign(null, Buffer.from(checkpointMessage(c)), this.privateKey).toString(
      "base64",
    );
    return { ...c, signature, key_id: this.keyId };
  }

  verify(c: Checkpoint): boolean {
    return verify(
      null,
      Buffer.from(checkpointMessage(c)),
      createPublicKey(this.publicKeyPem),
      Buffer.from(c.signature, "base64"),
    );
  }
}

/**
 * The configured key (EVIDENT_AUDIT_SIGNING_KEY: an Ed25519 private key in PKCS#8 PEM), or for a
 * single embedded process a key generated once into DATA_DIR/audit-signing-key.pem.
 */
export async function loadCheckpointSigner(
  configuredPem: string | undefined,
  dataDir: string,
): Promise<CheckpointSigner> {
  if (configuredPem) return new CheckpointSigner(createPrivateKey(configuredPem));
  const file = path.resolve(dataDir, "audit-signing-key.pem");
  try {
    return new CheckpointSigner(createPrivateKey(await readFile(file, "utf8")));
  } catch {
    await mkdir(path.dirname(file), { recursive: true });
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    await writeFile(file, pem, { mode: 0o600, flag: "wx" }).catch(() => undefined);
    return new CheckpointSigner(createPrivateKey(await readFile(file, "utf8")));
  }
}

import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/** Encrypts backend credentials at rest with AES-256-GCM. Format: v1.<iv>.<tag>.<ciphertext> (base64url). */
export class CredentialCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("the credential key must be 32 bytes");
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ["v1", iv, tag, body]
      .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
      .join(".");
  }

  /** An HMAC of `label` under this key: a value every replica sharing the key derives alike. */
  derive(label: string): string {
    return createHmac("sha256", this.key).update(label).digest("base64url");
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined)
      throw new Error("unknown credential format");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([
      decipher.update(Buffer.from(body, "base64url")),
      decipher.final(),
    ]).toString("utf8");
  }
}

/**
 * The configured key (EVIDENT_ENCRYPTION_KEY, base64 of 32 bytes), or, for a single embedded
 * process, a key generated once and kept in DATA_DIR/credential.key (mode 0600). Replicas sharing
 * Postgres must all be given the same EVIDENT_ENCRYPTION_KEY.
 */
export async function loadCredentialCipher(
  configured: string | undefined,
  dataDir: string,
): Promise<CredentialCipher> {
  if (configured !== undefined) return new CredentialCipher(Buffer.from(configured, "base64"));
  const file = path.resolve(dataDir, "credential.key");
  try {
    return new CredentialCipher(Buffer.from((await readFile(file, "utf8")).trim(), "base64"));
  } catch {
    await mkdir(path.dirname(file), { recursive: true });
    const key = randomBytes(32);
    await writeFile(file, key.toString("base64"), { mode: 0o600, flag: "wx" }).catch(
      async () => undefined,
    );
    await chmod(file, 0o600).catch(() => undefined);
    return new CredentialCipher(Buffer.from((await readFile(file, "utf8")).trim(), "base64"));
  }
}

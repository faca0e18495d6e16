import { createHash } from "node:crypto";
import test from "ava";
import { StreamDigest } from "./stream-digest.js";

const sha = (text: string): string => createHash("sha256").update(text).digest("hex");

test("the digest of a short stream is the SHA-256 of its text, with or without a suffix", (t) => {
  const digest = new StreamDigest();
  t.is(digest.hex(), sha(""));
  digest.update('data: {"a":1}\n\n');
  digest.update("data: é ü 中文 🙂\n\n");
  const text = 'data: {"a":1}\n\ndata: é ü 中文 🙂\n\n';
  t.is(digest.hex(), sha(text));
  t.is(digest.hex("data: [DONE]\n\n"), sha(`${text}data: [DONE]\n\n`));
  // Reading it leaves it unchanged, and it goes on.
  digest.update("more");
  t.is(digest.hex(), sha(`${text}more`));
});

test("past its threshold the digest is incremental and still the SHA-256 of all the text", (t) => {
  const digest = new StreamDigest(10);
  const pieces = ["0123456", "789abcdef", "ghij", "", "klm🙂nop"];
  let text = "";
  for (const piece of pieces) {
    digest.update(piece);
    text += piece;
    t.is(digest.hex(), sha(text));
    t.is(digest.hex("[DONE]"), sha(`${text}[DONE]`));
  }
});

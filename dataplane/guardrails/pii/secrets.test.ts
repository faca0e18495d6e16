import test from "ava";
import { findSecrets, holdsKeyFormatLiteral, KEY_FORMAT_LITERALS } from "./secrets.js";

/**
 * A small labelled set: each text with the exact secret values it holds. Values are made up in
 * the providers' formats (none is a real credential). Precision and recall on it must be >= 0.95.
 */
const LABELLED: ReadonlyArray<{ text: string; secrets: string[] }> = [
  { text: "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", secrets: ["AKIAIOSFODNN7EXAMPLE"] },
  {
    text: "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    secrets: ["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
  },
  {
    text: "use ghp_R2d2C3poXwingYodaLukeLeiaHanChew1234 for the clone",
    secrets: ["ghp_R2d2C3poXwingYodaLukeLeiaHanChew1234"],
  },
  {
    text: "token github_pat_11ABCDEFG0abcdefghijKL_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
    secrets: [
      "github_pat_11ABCDEFG0abcdefghijKL_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01234",
    ],
  },
  {
    text: "SLACK_BOT=xoxb-2048612345-7751234567890-AbCdEfGhIjKlMnOpQrStUvWx",
    secrets: ["xoxb-2048612345-7751234567890-AbCdEfGhIjKlMnOpQrStUvWx"],
  },
  {
    text: "stripe.api_key = 'sk_live_51HqLyjWDarjtT1zdp7dcXYZab'",
    secrets: ["sk_live_51HqLyjWDarjtT1zdp7dcXYZab"],
  },
  {
    text: 'client = OpenAI(api_key="sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678")',
    secrets: ["sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678"],
  },
  {
    text: "key: sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-zYxWvUtSrQpOnMlKjIhGfEdCbA0123456789abcdefghijAA",
    secrets: [
      "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA-zYxWvUtSrQpOnMlKjIhGfEdCbA0123456789abcdefghijAA",
    ],
  },
  {
    text: "maps?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&q=x",
    secrets: ["AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"],
  },
  {
    text: "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    secrets: [
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
  },
  {
    text: "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----\nthanks",
    secrets: [
      "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\nKUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQ==\n-----END RSA PRIVATE KEY-----",
    ],
  },
  { text: "DB_PASSWORD=Tr0ub4dor&3 in the .env", secrets: ["Tr0ub4dor&3"] },
  {
    text: '{"password": "correct-horse-battery", "user": "bob"}',
    secrets: ["correct-horse-battery"],
  },
  {
    text: "auth_token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    secrets: ["9f8e7d6c5b4a39281706f5e4d3c2b1a0"],
  },
  {
    text: "our gateway key is ev_sk_4fG7hJ2kL9mN3pQ6rS8tV1wX5yZ0aB2c",
    secrets: ["ev_sk_4fG7hJ2kL9mN3pQ6rS8tV1wX5yZ0aB2c"],
  },
  {
    text: "npm config set //registry/:_authToken=npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3aB5",
    secrets: ["npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3aB5"],
  },
  // Hard negatives: placeholders, prose, low-entropy tokens, lookalikes.
  {
    text: "Set password=<your password> and api_key=${OPENAI_API_KEY} before running.",
    secrets: [],
  },
  { text: "The token: expires after an hour; the secret = unknown.", secrets: [] },
  { text: "token=aaaaaaaaaaaaaaaaaaaaaaaa and api_key: xxxxxxxxxxxxxxxx", secrets: [] },
  { text: "Please reset my password: forgotten", secrets: [] },
  { text: "The task-queue sk-learn model and ghp_short are fine; AKIA is a prefix.", secrets: [] },
  {
    text: "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    secrets: [],
  },
  { text: "Use the password field, token: REDACTED, api-key: your-api-key", secrets: [] },
];

test("labelled secrets set: precision and recall >= 0.95", (t) => {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const { text, secrets } of LABELLED) {
    const found = [...new Set(findSecrets(text).map((m) => text.slice(m.start, m.end)))];
    for (const value of found)
      if (secrets.includes(value)) tp++;
      else fp++;
    for (const value of secrets) if (!found.includes(value)) fn++;
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  t.true(precision >= 0.95, `precision ${precision}`);
  t.true(recall >= 0.95, `recall ${recall}`);
});

test("a private key header without its END line is still caught up to the end of the body", (t) => {
  const text =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAAAAB";
  const [match] = findSecrets(text);
  t.deepEqual(match && { start: match.start, end: match.end }, { start: 0, end: text.length });
});

test("the key-format literals are found around their marks exactly where a whole-text search finds them", (t) => {
  const literals = [
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "AGPA",
    "AIDA",
    "AIPA",
    "ANPA",
    "ANVA",
    "AROA",
    "APKA",
    "ASCA",
    "ghp_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxe-",
    "hooks.slack.com",
    "sk_live_",
    "rk_test_",
    "sk-",
    "ev_sk_",
    "AIza",
    "eyJ",
    "npm_",
    "hf_",
  ];
  const noise = ["a", "A", "_", "-", "J", " ", "k", "s", "x", "o", "hooks.slack", "e", "y", "\n"];
  let seed = 5;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let k = 0; k < 30_000; k++) {
    let text = "";
    const pieces = Math.floor(next() * 80);
    for (let p = 0; p < pieces; p++) {
      const list = next() < 0.03 ? literals : noise;
      text += list[Math.floor(next() * list.length)];
    }
    if (holdsKeyFormatLiteral(text) !== KEY_FORMAT_LITERALS.test(text))
      t.fail(JSON.stringify(text));
  }
  t.pass();
});

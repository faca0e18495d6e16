import test from "ava";
import { ConfigError, loadConfig } from "./config.js";

test("defaults give a working embedded setup", (t) => {
  const c = loadConfig({});
  t.is(c.PORT, 8080);
  t.is(c.GRPC_PORT, 9090);
  t.is(c.DATA_DIR, "./.evident");
  t.is(c.DATABASE_URL, undefined);
  t.is(c.REDIS_URL, undefined);
});

test("empty strings count as unset", (t) => {
  t.is(loadConfig({ DATABASE_URL: "", PORT: "" }).PORT, 8080);
});

test("a bad value names the variable", (t) => {
  const err = t.throws(() => loadConfig({ PORT: "eighty" }), { instanceOf: ConfigError });
  t.is(err?.variable, "PORT");
  t.regex(err?.message ?? "", /PORT/);
  t.is(
    t.throws(() => loadConfig({ REDIS_URL: "localhost:6379" }))?.message.includes("REDIS_URL"),
    true,
  );
  t.is(t.throws(() => loadConfig({ LOG_LEVEL: "loud" }))?.message.includes("LOG_LEVEL"), true);
});

test("a malformed admin key is rejected without echoing it", (t) => {
  const secret = "sk-proj-notoursatall1234567890";
  const err = t.throws(() => loadConfig({ EVIDENT_ADMIN_KEY: secret }));
  t.regex(err?.message ?? "", /EVIDENT_ADMIN_KEY/);
  t.false((err?.message ?? "").includes(secret));
});

test("database urls must be postgres urls", (t) => {
  t.throws(() => loadConfig({ DATABASE_URL: "mysql://x" }), { message: /DATABASE_URL/ });
  t.is(loadConfig({ DATABASE_URL: "postgres://u@h/db" }).DATABASE_URL, "postgres://u@h/db");
});

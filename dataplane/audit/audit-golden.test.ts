import test from "ava";
import { CANONICAL_CORPUS } from "../../test/support/canonical-corpus.js";
import { goldenRecords } from "../../test/support/golden-records.js";
import { chainAfter } from "../store/audit-chain-append.js";
import { canonicalJson, recordDigest, sha256Hex } from "./audit-record.js";
import { storableRecord } from "./storable-record.js";

/**
 * Golden values taken from the implementation at b9e818f: the canonical text, record digests and
 * chain hashes of the same records must never change (stored chains and exported bundles are
 * verified against them), however the code that makes them changes.
 */
const CANONICAL_SHA256: Record<string, string> = {
  numbers: "8971f203fa4c8b00bdaf01331fcdcc86b9415967688444b6b1696c09fb6978de",
  strings: "7b36f2ec4e92292a6fb365270899ac168b9c770dfb70592b7069f29c5ada7796",
  member_names: "dc6fd73ae80cffdfde3ac258c7dd6b99e61656a7411790fefada86ccc0b07f1c",
  integer_names: "88f1d5d864d29ee7e34bed097931cc725766463ad2b97c08685f0c20dbc66b21",
  undefined_members: "634fbe4bc76afcdc36e55774544c27943e8fb78836ef3696baf046ee4b06b969",
  literals: "44ae6c74a5e043940063211a49fca7b8d56af1c72728c8f0f9ffa421f54fc424",
  sorted_plain: "c28f22bdbdc72233b91df8f8a8f0bd12db3b6a81a9afcdf7ad241335cc2d5041",
  unsorted_plain: "c28f22bdbdc72233b91df8f8a8f0bd12db3b6a81a9afcdf7ad241335cc2d5041",
  many_unsorted: "1c2b824239dddb8a7669b6e104e20d9af830ce7a702a7d2c95e09a99e7754bee",
  many_sorted: "2dfb5671db6d750237ccc9256b10d223bc126c54fa096e732403ac76dcdf2a03",
  deep: "aab53edd5302cdbeddc3c541e5c5f611897a101334d261eb70b00d1051f0ce42",
  null_prototype: "cdab067e9f3beb32d1252cfd63e492592fecbf591b0d08cadb24bb17f3864246",
  scalar_string: "cd01ec5bbdcfc12a5a94797ea61987c9ee87548cfe369d3110ab0322a4ec4465",
  scalar_number: "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
  scalar_null: "74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
};

test("canonical JSON of odd numbers, escapes, unicode, member names and deep nesting is as it always was", (t) => {
  t.deepEqual(Object.keys(CANONICAL_SHA256), Object.keys(CANONICAL_CORPUS));
  for (const [name, value] of Object.entries(CANONICAL_CORPUS)) {
    t.is(sha256Hex(canonicalJson(value)), CANONICAL_SHA256[name], name);
  }
  t.is(
    canonicalJson(CANONICAL_CORPUS.numbers),
    "[1e+21,0,0.1,0.30000000000000004,1e-7,5e-324,1.7976931348623157e+308,-1.5e-300,123456789012345680000,null,null,null,42,-17,9007199254740992]",
  );
  t.is(canonicalJson(CANONICAL_CORPUS.integer_names), '{"1":"one","10":"ten","2":"two"}');
  t.is(canonicalJson(CANONICAL_CORPUS.undefined_members), '{"b":[null,1],"c":{}}');
  t.is(
    canonicalJson(CANONICAL_CORPUS.member_names),
    '{"":3,"10":8,"9":9,"A":11,"a":2,"a\\u0000":13,"aa":12,"b":1,"q\\"uote":14,"~":10,"é":4,"\\ud800":7,"😀":5,"ｚ":6}',
  );
  t.is(
    canonicalJson(CANONICAL_CORPUS.strings),
    canonicalJson(JSON.parse(JSON.stringify(CANONICAL_CORPUS.strings))),
  );
});

const FIELDS_SHA256 = [
  "e0b523455ccf38435d729183c20e75cd52b8fc04b404317aa69cd038bdb7a323",
  "f9f2138eb977309cdee20adfc7f7c3e8f4ceb01334d490404ed3e931437bdcd7",
  "3f982435f39a9c855160c493733ed86f9ee1514f2e280309594c87f45d2e3be5",
  "c4aea28a9bc344e5bc86d9605e1c63f861c0bc71a02ca1b97e8a4b21fc762f46",
];

const STORED_DIGESTS_AT_SEQ_1 = [
  "635e1055b42fc377636dcdc88d412ee5e5781efc3e182a37158351bd6bc2fdd7",
  "ef0891a0530db1504e476acd6c0e1041c72caaed2ed60b009913dfee34c1e781",
  "8ff7185869750cc151af79f2076ebd993d46d5f78af3ce691e327152eed374ad",
  "4ac483a5c7ea1f1b8d2c51ae08d9cd6bb61655ad6bdeb6d9379e775131150987",
];

test("call and management records, made storable, digest as they always did", (t) => {
  const records = goldenRecords();
  t.deepEqual(
    records.map((r) => sha256Hex(canonicalJson(r.fields))),
    FIELDS_SHA256,
  );
  t.deepEqual(
    records.map(storableRecord).map((r) => recordDigest({ ...r.fields, seq: 1 })),
    STORED_DIGESTS_AT_SEQ_1,
  );
});

test("a batch chained after a head gives the same store parameter and chain hashes, from memory or read back from the log", (t) => {
  const head = { seq: 41, hash: "ef".repeat(32) };
  const fromMemory = chainAfter(head, goldenRecords().map(storableRecord));
  t.is(
    sha256Hex(fromMemory.json),
    "1a73aa6af9a432e84a5fab3f7c31e53d3e4fd10ffac4702d5116aacdbcebb1c2",
  );
  t.deepEqual(fromMemory.head, {
    seq: 45,
    hash: "8870f0d675347282f6999843ed93f0d0e98610cf66815a5dba50f70cb925043c",
  });
  const logLines = goldenRecords().map((r) => JSON.stringify(r));
  const readBack = chainAfter(
    head,
    logLines.map((line) => storableRecord(JSON.parse(line) as ReturnType<typeof goldenRecords>[0])),
  );
  t.true(readBack.json.equals(fromMemory.json));
  t.deepEqual(readBack.head, fromMemory.head);
});

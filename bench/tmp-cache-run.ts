import { cacheSectionFor } from "./sections/cache.js";
import { formatReport } from "./report/format-report.js";
const sizes = process.argv.slice(2).map(Number);
const report = await cacheSectionFor(sizes).run({
  options: { rounds: 1, throughputSeconds: 1, latencySeconds: 1, pacedStreams: 1, outputFile: "/tmp/x.json", gatewayProfileDir: undefined, postgresUrl: "postgres://postgres:postgres@127.0.0.1:5432/postgres", redisUrl: "" },
  log: (l) => process.stderr.write(`[bench] ${l}\n`),
});
console.log(formatReport(report));

/**
 * Bytes per request by allocating function (or by package/directory with `by=place`) from a
 * heap-sampling.ts profile, given the requests served in its window.
 *
 *   npx tsx scripts/profiling/heap-sampling-summary.ts <file.heapprofile> <requests> [top=40] [by=function|place]
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const [file, requestsArg, topArg = "40", by = "function"] = process.argv.slice(2);
if (file === undefined || requestsArg === undefined) throw new Error("file and requests needed");
const head = (JSON.parse(readFileSync(file, "utf8")) as { head: ProfileNode }).head;
const requests = Number(requestsArg);

function place(url: string, name: string): string {
  const inPackage = url.split("node_modules/")[1];
  if (inPackage !== undefined) return inPackage.split("/")[0] ?? inPackage;
  if (url.startsWith("node:")) return url.split("/").slice(0, 2).join("/");
  const local = url.replace(/^.*?\/(dataplane|bench|scripts|test)\//, "$1/");
  return local === "" ? name : local.split("/").slice(0, 2).join("/");
}

const bytes = new Map<string, number>();
let total = 0;
const stack: ProfileNode[] = [head];
for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || "(anonymous)";
  const key =
    by === "place"
      ? place(url, name)
      : `${name} ${url.replace(/^.*\/work\/[^/]+\//, "")}:${lineNumber}`;
  bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  stack.push(...node.children);
}
console.log(
  `${(total / 2 ** 20).toFixed(1)} MiB sampled; ${(total / requests / 1024).toFixed(1)} KB per request`,
);
for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg)))
  console.log(
    `${(size / requests).toFixed(0).padStart(8)} B/req ${((100 * size) / total).toFixed(1).padStart(5)}%  ${key}`,
  );

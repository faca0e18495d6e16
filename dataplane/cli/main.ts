/**
 * The `evident` command line. Subcommands live in one table; add one by adding an entry (e.g.
 * `audit verify`, keyed by its words).
 */
import { auditVerifyCommand } from "./audit-verify-command.js";
import { runScan } from "./scan-command.js";
import { parseScanFlags } from "./scan-flags.js";

export interface CliIo {
  stdin: NodeJS.ReadableStream & import("node:stream").Readable;
  stdout: import("node:stream").Writable;
  stderr: import("node:stream").Writable;
}

export interface Subcommand {
  summary: string;
  usage: string;
  /** Returns the process exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

export const SUBCOMMANDS: Record<string, Subcommand> = {
  "audit verify": auditVerifyCommand,
  scan: {
    summary: "scan JSON lines {id, text} from stdin with every built-in guardrail",
    usage: "evident scan [--injection-threshold N] [--safety-threshold N] < input.jsonl",
    async run(args, io) {
      const flags = parseScanFlags(args);
      if (typeof flags === "string") {
        io.stderr.write(`${flags}\nusage: ${SUBCOMMANDS["scan"]!.usage}\n`);
        return 2;
      }
      await runScan(io.stdin, io.stdout, flags);
      return 0;
    },
  },
};

function help(): string {
  const names = Object.keys(SUBCOMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  return [
    "usage: evident <command> [options]",
    "",
    "commands:",
    ...names.map((n) => `  ${n.padEnd(width)}  ${SUBCOMMANDS[n]!.summary}`),
    "",
  ].join("\n");
}

/** Finds the longest run of leading words that names a subcommand ("audit verify" before "audit"). */
function resolve(argv: string[]): { command: Subcommand; rest: string[] } | undefined {
  for (let n = Math.min(argv.length, 3); n > 0; n--) {
    const command = SUBCOMMANDS[argv.slice(0, n).join(" ")];
    if (command !== undefined) return { command, rest: argv.slice(n) };
  }
  return undefined;
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    io.stdout.write(help());
    return argv.length === 0 ? 2 : 0;
  }
  const found = resolve(argv);
  if (found === undefined) {
    io.stderr.write(`unknown command: ${argv[0]}\n${help()}`);
    return 2;
  }
  return found.command.run(found.rest, io);
}

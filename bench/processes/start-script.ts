/**
 * The Node flags and environment defaults `npm start` gives the gateway, read from package.json's
 * "start" script, so that the benchmarks and the tests that start the gateway as a process start
 * it the same way (the README's "Memory" says what each setting does; test/start-command.test.ts
 * checks that Dockerfile.dataplane starts the image the same way).
 */
import { readFileSync } from "node:fs";

export interface StartSettings {
  /** Node and V8 flags before the entry point, e.g. "--max-semi-space-size=32". */
  nodeFlags: string[];
  /** Environment defaults the script sets as NAME=${NAME:-value}. */
  envDefaults: Record<string, string>;
}

/** Reads `NAME=${NAME:-value} ... node --flag ... --import tsx dataplane/main.ts`. */
export function parseStartScript(script: string): StartSettings {
  const words = script.trim().split(/\s+/);
  const envDefaults: Record<string, string> = {};
  let i = 0;
  for (; i < words.length; i++) {
    const match = /^(\w+)=\$\{(\w+):-([^}]*)\}$/.exec(words[i] ?? "");
    if (!match || match[1] !== match[2]) break;
    envDefaults[match[1] as string] = match[3] as string;
  }
  if (words[i] !== "node") throw new Error(`the start script does not run node: ${script}`);
  const nodeFlags: string[] = [];
  for (i++; i < words.length && words[i] !== "--import"; i++) nodeFlags.push(words[i] as string);
  return { nodeFlags, envDefaults };
}

const packageJson = JSON.parse(
  readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
) as { scripts: { start: string } };

export const START_SETTINGS: StartSettings = parseStartScript(packageJson.scripts.start);

/** The start script's environment defaults, each overridden by the same variable in `env`. */
export function startEnvironment(env: Record<string, string | undefined>): Record<string, string> {
  const chosen: Record<string, string> = {};
  for (const [name, value] of Object.entries(START_SETTINGS.envDefaults))
    chosen[name] = env[name] ?? value;
  return chosen;
}

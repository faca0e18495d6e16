import { freshPostgresUrl, POSTGRES_URL } from "./databases.js";
import { startTestApp, type RunningApp } from "./test-app.js";

/** The stores the prompt tests run on: PGlite always, real Postgres when DATABASE_URL is set. */
export const promptBackends = ["pglite", ...(POSTGRES_URL ? ["postgres"] : [])] as const;

/** A gateway for prompt tests on PGlite or a fresh Postgres database. */
export async function promptGateway(
  backend: string,
): Promise<{ gw: RunningApp; close: () => Promise<void> }> {
  if (backend === "pglite") {
    const gw = await startTestApp();
    return { gw, close: () => gw.close() };
  }
  const fresh = await freshPostgresUrl();
  const gw = await startTestApp({ env: { DATABASE_URL: fresh.url } });
  return {
    gw,
    async close() {
      await gw.close();
      await fresh.drop();
    },
  };
}

/** A prompt version with two variables and a parameter: a support agent answering a question. */
export const supportAgentVersion = {
  messages: [
    { role: "system", content: "You are the support agent of {{company}}." },
    { role: "user", content: "{{question}}" },
  ],
  variables: ["company", "question"],
  params: { temperature: 0.2 },
};

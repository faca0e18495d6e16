/**
 * The Evident operator process: config from the environment, kubeconfig in-cluster or from
 * KUBECONFIG, health/metrics server, leader election, graceful shutdown on SIGTERM/SIGINT.
 */
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { ConfigError, loadOperatorConfig, type OperatorConfig } from "./config/config.js";
import { ClientNodeKube } from "./kube/client-node-kube.js";
import { httpNativeApi } from "./native/native-client.js";
import { namespaceLabelBinding } from "./controllers/customer-binding.js";
import { startOperator } from "./operator.js";
import { systemClock } from "./runtime/clock.js";
import { startHealthServer } from "./runtime/health-server.js";
import { OperatorMetrics } from "./runtime/metrics.js";

function loadKubeConfig(config: OperatorConfig): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
  else kubeConfig.loadFromDefault(); // in-cluster service account when running in a pod
  return kubeConfig;
}

async function main(): Promise<void> {
  let config: OperatorConfig;
  try {
    config = loadOperatorConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = pino({
    level: config.logLevel,
    base: { component: "evident-operator", pod: config.podName },
  });
  const metrics = new OperatorMetrics({ processMetrics: true });
  const kube = new ClientNodeKube(loadKubeConfig(config));
  const native = httpNativeApi({ baseUrl: config.apiUrl, apiKey: config.apiKey });
  let shuttingDown = false;

  const operator = startOperator({
    kube,
    native,
    clock: systemClock,
    logger,
    metrics,
    watchNamespace: config.watchNamespace,
    resyncMs: config.resyncSeconds * 1000,
    identity: config.podName,
    concurrency: config.concurrency,
    endpointTemplate: config.endpointTemplate,
    concurrencyMetric: config.concurrencyMetric,
    customerBinding:
      config.customerBinding === "required"
        ? namespaceLabelBinding(kube, config.customerLabel)
        : undefined,
    lease: config.leaderElection
      ? {
          namespace: config.leaseNamespace,
          name: config.leaseName,
          durationMs: config.leaseDurationSeconds * 1000,
          retryPeriodMs: Math.max(1000, Math.round((config.leaseDurationSeconds * 1000) / 5)),
        }
      : undefined,
  });
  const health = await startHealthServer({
    port: config.metricsPort,
    registry: metrics.registry,
    live: () => !shuttingDown,
    ready: () => !shuttingDown && operator.ready(),
  });
  logger.info(
    {
      watchNamespace: config.watchNamespace ?? "(all)",
      metricsPort: config.metricsPort,
      lease: `${config.leaseNamespace}/${config.leaseName}`,
      customerBinding: config.customerBinding,
    },
    "operator started",
  );
  if (config.apiKeyRole === "admin")
    logger.warn(
      "using EVIDENT_ADMIN_KEY: create an API key with role operator and set EVIDENT_OPERATOR_KEY instead",
    );

  const shutdown = async (signal: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, "shutting down: finishing in-flight reconciles, releasing the lease");
    const force = setTimeout(() => process.exit(1), 25_000);
    force.unref();
    await operator.stop();
    await new Promise<void>((resolve) => health.close(() => resolve()));
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

void main().catch((err: unknown) => {
  process.stderr.write(
    `operator failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});

/** Powertools singletons shared by every handler in a container. They read their own POWERTOOLS_* settings. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

export const serviceName = 'market-archive';

const containerLogger = new Logger({ serviceName });
const invocationLogger = new AsyncLocalStorage<Logger>();

/**
 * The logger of the running invocation. Lambda runs one invocation at a time in a container, so
 * that is the container's logger; the local cloud runs many at once in one process and gives each
 * its own (`withOwnLogger`), so the keys one invocation appends (request id, route, function name)
 * never land on another's lines.
 */
export const logger: Logger = new Proxy(containerLogger, {
  get(target, property) {
    const current = invocationLogger.getStore() ?? target;
    const value: unknown = Reflect.get(current, property, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});

/** Runs one invocation with a logger of its own (a child of the container's, same settings). */
export function withOwnLogger<T>(work: () => T): T {
  return invocationLogger.run(containerLogger.createChild(), work);
}
export const metrics = new Metrics({ serviceName, namespace: 'MarketArchive' });

/**
 * Publishes the invocation's metrics when it recorded any. Powertools' own logMetrics middleware
 * warns on every invocation without metrics, which on the HTTP path is most of them.
 */
export function publishMetrics(): { after: () => void; onError: () => void } {
  const publish = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: publish, onError: publish };
}

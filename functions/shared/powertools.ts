/** Powertools singletons shared by every handler in a container. They read their own POWERTOOLS_* settings. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

const serviceName = 'market-archive';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ serviceName, namespace: 'MarketArchive' });
export const tracer = new Tracer({ serviceName });

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

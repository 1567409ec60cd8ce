/** Powertools singletons shared by every handler in a container. They read their own POWERTOOLS_* settings. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';

const serviceName = 'market-archive';

export const logger = new Logger({ serviceName });
export const metrics = new Metrics({ serviceName, namespace: 'MarketArchive' });
export const tracer = new Tracer({ serviceName });

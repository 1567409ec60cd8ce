/**
 * The X-Ray tracer of the HTTP handlers, the only ones that trace. Apart from powertools.ts, which
 * every function loads: the X-Ray SDK's automatic mode puts an async hook on every promise of the
 * process it is loaded in (cls-hooked), a cost the queue consumers and jobs need not carry. A
 * function that loads it traces its AWS SDK clients too (client-tracing.ts).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { serviceName } from './powertools.ts';
import { traceClientsWith } from './client-tracing.ts';

export const tracer = new Tracer({ serviceName });
traceClientsWith(tracer);

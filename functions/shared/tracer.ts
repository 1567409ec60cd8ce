/**
 * The X-Ray tracer of the HTTP handlers, the only ones that trace. Apart from powertools.ts, which
 * every function loads: the X-Ray SDK's automatic mode puts an async hook on every promise of the
 * process it is loaded in (cls-hooked), a cost the queue consumers and jobs need not carry.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { serviceName } from './powertools.ts';

export const tracer = new Tracer({ serviceName });

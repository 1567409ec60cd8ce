/**
 * Every AWS SDK client a composition root builds goes through `traced`. In a function that traces
 * (one that loads shared/tracer.ts: the HTTP handlers) that is Powertools' `captureAWSv3Client`, so
 * each SDK call is a subsegment of the invocation's X-Ray trace; Powertools itself leaves the
 * client as it is outside Lambda, or with POWERTOOLS_TRACE_ENABLED=false (the local cloud, tests).
 * In the other functions the client is returned as built: this module does not load the X-Ray SDK,
 * whose automatic mode hooks every promise of the process (test/unit/shared/tracer-scope.test.ts).
 * The layering test fails on a client built without it.
 */

/** The part of Powertools' Tracer this needs. */
export interface ClientTracer {
  captureAWSv3Client<T>(client: T): T;
}

let clientTracer: ClientTracer | undefined;

/** Makes `tracer` trace every client built from now on (shared/tracer.ts calls it when it loads). */
export function traceClientsWith(tracer: ClientTracer): void {
  clientTracer = tracer;
}

/** The client, instrumented by the function's tracer when it has one. */
export function traced<T extends object>(client: T): T {
  return clientTracer ? clientTracer.captureAWSv3Client(client) : client;
}

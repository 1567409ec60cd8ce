/**
 * The infra suites that read the app as `npm run synth` builds it (bundling off, no cdk-nag): one
 * synthesis, shared by all of them in this file, instead of one a file (a synthesis is seconds of
 * CPU). Each suite is a module of its own; cdk-nag's and the catalogue's suites synthesize
 * differently and stay files of their own.
 */
import './monitoring.suite.ts';
import './rest-api.suite.ts';
import './service-functions.suite.ts';
import './state-machine.suite.ts';
import './stateful-stack.suite.ts';

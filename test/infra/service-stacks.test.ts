/**
 * The infra suites that read the app as `npm run synth` builds it, cdk-nag's checks included (but
 * bundling off): one synthesis, shared by all of them in this file, instead of one a file (a
 * synthesis is seconds of CPU). Each suite is a module of its own; the catalogue's suite mocks the catalogue
 * and stays a file of its own.
 */
import './cdk-nag.suite.ts';
import './monitoring.suite.ts';
import './quotas.suite.ts';
import './rest-api.suite.ts';
import './service-functions.suite.ts';
import './state-machine.suite.ts';
import './stateful-stack.suite.ts';

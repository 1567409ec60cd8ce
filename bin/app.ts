/** CDK entry point (cdk.json runs it with tsx): both stacks, bundled, checked by cdk-nag. */
import { buildApp } from '../lib/app.ts';

const { app } = buildApp({ bundling: true, nag: true });
app.synth();

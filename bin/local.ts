/** `npm start`: the local cloud on http://127.0.0.1:$PORT with no AWS account. */
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { ConfigError } from '../functions/shared/config.ts';

async function main(): Promise<void> {
  const settings = localSettings();
  const started = Date.now();
  const cloud = await startLocalCloud({
    port: settings.PORT,
    dataDir: settings.LOCAL_DATA_DIR,
    apiKeys: settings.LOCAL_API_KEYS,
    logLevel: settings.LOG_LEVEL,
  });
  const width = Math.max(...settings.LOCAL_API_KEYS.map((k) => k.key.length));
  console.log(`\nLocal cloud ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`  base URL   ${cloud.url}`);
  console.log(`  health     curl ${cloud.url}/health`);
  console.log(`  OpenAPI    ${cloud.url}/v1/openapi.json`);
  console.log(`  data       ${settings.LOCAL_DATA_DIR}`);
  console.log('  API keys (header X-API-Key):');
  for (const { key, plan } of settings.LOCAL_API_KEYS) console.log(`    ${key.padEnd(width)}  ${plan}`);
  console.log('Press Ctrl-C to stop.\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local cloud…`);
    await cloud.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});

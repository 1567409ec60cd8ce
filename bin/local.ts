/** `npm start`: the local cloud on http://127.0.0.1:$PORT with no AWS account. */
import { startLocalCloud } from '../functions/local/cloud.ts';
import { localSettings } from '../functions/local/settings.ts';
import { BACKGROUND_NICENESS } from '../functions/local/sandbox.ts';
import { ConfigError } from '../functions/shared/config.ts';
import { plural, progressBar } from './progress.ts';
import type { SeedProgress } from '../functions/local/demo-feed.ts';

/** The seed's progress: batches ingested of those the seed writes, and where the simulation stands. */
function seedProgress(label: string) {
  const bar = progressBar(label, 'batches');
  return ({ phase, written, total, ingested, records, simulatedTo }: SeedProgress) => {
    bar.update(
      ingested,
      total,
      `${phase === 'near' ? 'newest hours' : 'older days (live already)'}: ${written} written, ${records.toLocaleString('en-US')} records, simulated to ${new Date(simulatedTo).toISOString().slice(0, 16)}Z`,
    );
    if (ingested === total) bar.stop();
  };
}

async function main(): Promise<void> {
  const settings = localSettings();
  const started = Date.now();
  const cloud = await startLocalCloud({
    port: settings.PORT,
    dataDir: settings.LOCAL_DATA_DIR,
    apiKeys: settings.LOCAL_API_KEYS.map((k) => ({ ...k, monthlyCredits: settings.LOCAL_MONTHLY_CREDITS })),
    logLevel: settings.LOG_LEVEL,
    // A user's calls come before the seed and the background functions.
    niceness: BACKGROUND_NICENESS,
    demo:
      settings.DEMO_DAYS > 0
        ? {
            days: settings.DEMO_DAYS,
            seed: settings.DEMO_SEED,
            intensity: settings.DEMO_INTENSITY,
            l2IntervalMs: settings.DEMO_L2_INTERVAL_S * 1000,
            orderLevelHours: settings.DEMO_ORDER_LEVEL_HOURS,
            nearHours: settings.DEMO_NEAR_HOURS,
            onProgress: seedProgress(`Seeding ${plural(settings.DEMO_DAYS, 'day')} of the demo market`),
          }
        : undefined,
  });
  const width = Math.max(...settings.LOCAL_API_KEYS.map((k) => k.key.length));
  console.log(`\nLocal cloud ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`  base URL   ${cloud.url}`);
  console.log(`  health     curl ${cloud.url}/health`);
  console.log(`  OpenAPI    ${cloud.url}/v1/openapi.json`);
  console.log(`  data       ${settings.LOCAL_DATA_DIR}`);
  console.log(`  S3         ${cloud.emulators.endpoints.s3} (bucket ${cloud.emulators.names.buckets.archive}, credentials S3RVER/S3RVER)`);
  console.log('  API keys (header X-API-Key):');
  for (const { key, plan } of settings.LOCAL_API_KEYS) console.log(`    ${key.padEnd(width)}  ${plan}`);
  if (cloud.demo) {
    const wallets = cloud.demo.market.wallets.map((w) => `${w.address} (${w.label})`);
    const symbols = cloud.demo.market.symbols();
    console.log('  demo wallets:');
    for (const wallet of wallets) console.log(`    ${wallet}`);
    console.log(
      `  demo symbols: ${Object.entries(symbols)
        .map(([family, list]) => `${family}: ${list.slice(0, 6).join(' ')}${list.length > 6 ? ' …' : ''}`)
        .join(' | ')}`,
    );
  }
  console.log('Press Ctrl-C to stop.\n');
  await cloud.demo?.seeded;
  if (cloud.demo) console.log(`Demo market seeded with its breadth history in ${((Date.now() - started) / 1000).toFixed(0)} s; live batches every second.`);

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

/**
 * The demo feed's own process (see demo-feed.ts), started by the local cloud at a lower CPU
 * priority: the simulation runs here, and the gateway's process only hears how far it got.
 * Parent -> child: the feed's options, then `stop`. Child -> parent: DemoFeedMessage.
 */
import { BUCKETS } from '../resources.ts';
import { config, requireSetting } from '../shared/config.ts';
import { archiveManifest, s3Client } from '../shared/deps.ts';
import { startDemoFeed, type DemoFeed, type DemoFeedMessage, type DemoProcessOptions } from './demo-feed.ts';

const tell = (message: DemoFeedMessage) => process.send?.(message);
let feed: DemoFeed | undefined;

process.on('message', (message: { start: DemoProcessOptions } | 'stop') => {
  if (message === 'stop') {
    void (feed?.stop() ?? Promise.resolve()).then(() => process.exit(0));
    return;
  }
  feed = startDemoFeed({
    ...message.start,
    s3: s3Client(),
    bucket: requireSetting(config(), BUCKETS.archive.envVar),
    manifest: archiveManifest(),
    onProgress: (progress) => tell({ progress }),
    onSymbols: (symbols) => tell({ symbols }),
  });
  tell({ wallets: feed.market.wallets });
  feed.seeded.then(
    (span) => tell({ seeded: span }),
    (error: unknown) => tell({ failed: String(error instanceof Error ? error.stack : error) }),
  );
});
process.on('disconnect', () => void (feed?.stop() ?? Promise.resolve()).then(() => process.exit(0)));

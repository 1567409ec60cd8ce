/**
 * What the demo feed adds on the way to the archive, playing the upstream normalizers and their
 * occasional trouble, so every live webhook type has something to fire on during a local run:
 *
 *   - a node upgrade every 30 minutes (started at :17 and :47, completed 3 to 9 minutes later);
 *   - an outcome settling every 30 minutes, at :05 and :35 (both sides of one outcome, in turn);
 *   - TWAP lifecycle records derived from the TWAP slices in the trades (activated at the first
 *     slice, finished 90 s after the last);
 *   - a priority gas auction payment (1.5 to 6 HYPE) on the first perpx trade after each :07 and :37
 *     (48 a day, under the 50 a UTC day that `market.pga_payment` delivers);
 *   - a 6-minute hole in the altx trade stream every hour, at :20 (an archive gap, then its resolution);
 *   - a 12-minute silence of one hip3 market's book every hour, at :38 (an ingest stall, then recovery).
 *
 * The cycles are short so that a local run of half an hour sees each of them.
 *
 * The schedule and the holes are functions of time and the seed. The trackers (open TWAPs, last
 * prices and open interest, payments made) live in memory: after a restart a TWAP already open may be
 * announced again (its key dedupes it) and a settlement soon after may lack its open interest.
 */
import type { NormalizedRecord } from '#schemas/datasets.ts';
import { hash32 } from './random.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const TWAP_DONE_AFTER_MS = 90_000;
const UPGRADE_EVERY = 30 * MINUTE;
const SETTLE_EVERY = 30 * MINUTE;
/** Where the venue reports TWAP status. */
const TWAP_FAMILIES: ReadonlySet<string> = new Set(['perpx', 'hip3', 'spot']);
export const STALLED_BOOK = { family: 'hip3', symbol: 'xyz:TSLA' } as const;
/** The holes the upstream leaves every hour, as minutes past the hour [from, to): the tests look for them as gaps and incidents. */
export const DEMO_HOLES = {
  altxTrades: { family: 'altx', dataset: 'trades', fromMinute: 20, toMinute: 26 },
  stalledBook: { ...STALLED_BOOK, dataset: 'l2_snapshots', fromMinute: 38, toMinute: 50 },
} as const;

const hex = (seed: number, ...parts: number[]) => Array.from({ length: 5 }, (_, i) => (hash32(seed, ...parts, i) >>> 0).toString(16).padStart(8, '0')).join('');

interface OpenTwap {
  record: Extract<NormalizedRecord, { dataset: 'trades' }>;
  executed: number;
  last: number;
}

export interface Upstream {
  /** The records of [from, until), with the upstream's additions and gaps. */
  apply(records: readonly NormalizedRecord[], from: number, until: number): NormalizedRecord[];
}

export function createUpstream(seed: number): Upstream {
  const twaps = new Map<number, OpenTwap>();
  const lastPrice = new Map<string, number>();
  const lastOpenInterest = new Map<string, string>();
  const paidMarks = new Set<number>();

  function scheduled(from: number, until: number): NormalizedRecord[] {
    const out: NormalizedRecord[] = [];
    for (let block = Math.floor(from / UPGRADE_EVERY) * UPGRADE_EVERY; block < until; block += UPGRADE_EVERY) {
      const commit = hex(seed, 11, block);
      const started = block + 17 * MINUTE;
      const completed = started + (3 + (hash32(seed, 12, block) % 7)) * MINUTE;
      if (started >= from && started < until)
        out.push({ dataset: 'chain_events', family: 'perpx', symbol: 'CHAIN', ts: started, kind: 'upgrade_started', commit });
      if (completed >= from && completed < until)
        out.push({ dataset: 'chain_events', family: 'perpx', symbol: 'CHAIN', ts: completed, kind: 'upgrade_completed', commit, started_at: started });
    }
    for (let block = Math.floor(from / SETTLE_EVERY) * SETTLE_EVERY; block < until; block += SETTLE_EVERY) {
      const ts = block + 5 * MINUTE;
      if (ts < from || ts >= until) continue;
      const outcome = (block / SETTLE_EVERY) % 4;
      const yesWins = (lastPrice.get(`#${10 * outcome}`) ?? 0.5) >= 0.5;
      for (const side of [0, 1]) {
        const symbol = `#${10 * outcome + side}`;
        const won = (side === 0) === yesWins;
        out.push({
          dataset: 'settlements',
          family: 'hip4',
          symbol,
          ts,
          resolution: won ? 'yes' : 'no',
          settle_price: won ? '1' : '0',
          open_interest: lastOpenInterest.get(symbol) ?? '0',
        });
      }
    }
    return out;
  }

  /** Holes the upstream leaves: the altx trade stream and one hip3 book. */
  function dropped(r: NormalizedRecord): boolean {
    for (const hole of Object.values(DEMO_HOLES)) {
      if (r.dataset !== hole.dataset || r.family !== hole.family || ('symbol' in hole && r.symbol !== hole.symbol)) continue;
      const offset = r.ts % HOUR;
      return offset >= hole.fromMinute * MINUTE && offset < hole.toMinute * MINUTE;
    }
    return false;
  }

  return {
    apply(records, from, until) {
      const out: NormalizedRecord[] = [];
      for (const record of records) {
        if (dropped(record)) continue;
        if (record.dataset === 'trades') {
          lastPrice.set(record.symbol, Number(record.price));
          const mark = Math.floor((record.ts - 7 * MINUTE) / (30 * MINUTE));
          if (record.family === 'perpx' && !paidMarks.has(mark) && record.priority_gas == null) {
            paidMarks.add(mark);
            out.push({ ...record, priority_gas: (1.5 + (hash32(seed, 13, mark) % 451) / 100).toFixed(6) });
          } else out.push(record);
          if (record.twap_id != null && record.user_address && TWAP_FAMILIES.has(record.family)) {
            const open = twaps.get(record.twap_id);
            if (open) {
              open.executed += Number(record.size);
              open.last = record.ts;
            } else {
              twaps.set(record.twap_id, { record, executed: Number(record.size), last: record.ts });
              out.push(twapRecord(record, 'activated', record.ts, Number(record.size)));
            }
          }
          continue;
        }
        if (record.dataset === 'open_interest' && record.family === 'hip4') lastOpenInterest.set(record.symbol, record.open_interest);
        out.push(record);
      }
      for (const [id, open] of twaps) {
        const done = open.last + TWAP_DONE_AFTER_MS;
        if (done >= until) continue;
        twaps.delete(id);
        if (done >= from) out.push(twapRecord(open.record, 'finished', done, open.executed));
      }
      out.push(...scheduled(from, until));
      return out.sort((a, b) => a.ts - b.ts);
    },
  };
}

function twapRecord(trade: Extract<NormalizedRecord, { dataset: 'trades' }>, status: 'activated' | 'finished', ts: number, executed: number): NormalizedRecord {
  return {
    dataset: 'twaps',
    family: trade.family,
    symbol: trade.symbol,
    ts,
    twap_id: trade.twap_id!,
    user_address: trade.user_address!,
    status,
    side: trade.side,
    // The slices seen so far are what the demo knows of the order's size; a finished TWAP executed all of it.
    size: executed.toFixed(8),
    executed_size: executed.toFixed(8),
  };
}

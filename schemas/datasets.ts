/**
 * The dataset registry: every dataset of the archive is defined once, in `DATASETS` below, and
 * ingest, compaction, coverage, reads and the routes' family sets are derived from it. Each entry has
 *   - the normalized JSON-lines record accepted by ingest (`<Dataset>Record`, one object per line,
 *     discriminated by `dataset`), validated whole before anything is written (derived datasets,
 *     built by compaction, have none);
 *   - its Parquet columns (name and DuckDB type), in file order;
 *   - the columns that identify a row (duplicates across batches collapse on them) and sort it;
 *   - its partitioning, how it compacts, its coverage start per family (which also says which
 *     families have it), its bulk-export schema if it has one, and an example record.
 * Decimal values (prices, sizes, fees, rates) stay strings end to end, so nothing is rounded.
 * Times are Unix epoch milliseconds (`ts`). How to add a dataset: docs/adding-a-dataset.md.
 */
import * as v from 'valibot';
import { CAPPED_BOOK_FAMILIES, FAMILIES, NATIVE_BOOK_LEVELS, SYMBOL_FORMS, type Family } from './venues.ts';

const decimal = v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string'));
const epochMs = v.pipe(
  v.number(),
  v.integer('must be integer epoch milliseconds'),
  v.minValue(1_262_304_000_000, 'must be epoch milliseconds after 2010'),
  v.maxValue(4_102_444_800_000, 'must be epoch milliseconds before 2100'),
);
const side = v.picklist(['B', 'A'], 'must be B (buy) or A (sell)');
const address = v.pipe(v.string(), v.regex(/^0x[0-9a-f]{40}$/, 'must be a lowercase 0x address'));
const optionalString = v.optional(v.nullable(v.string()));
const optionalDecimal = v.optional(v.nullable(decimal));
const family = v.picklist(FAMILIES, `must be one of ${FAMILIES.join(', ')}`);

/** `family` + a `symbol` in that family's form; the check names the form. */
function keyed<T extends v.ObjectEntries>(entries: T) {
  return v.pipe(
    v.strictObject({ family, symbol: v.pipe(v.string(), v.maxLength(40)), ts: epochMs, ...entries }),
    v.check((r) => SYMBOL_FORMS[r.family as Family].pattern.test(String(r.symbol)), 'symbol is not in the form of its family'),
  );
}

export const TradeRecord = keyed({
  dataset: v.literal('trades'),
  trade_id: v.pipe(v.number(), v.integer(), v.minValue(0)),
  side,
  price: decimal,
  size: decimal,
  crossed: v.optional(v.nullable(v.boolean())),
  fee: optionalDecimal,
  fee_token: optionalString,
  closed_pnl: optionalDecimal,
  direction: optionalString,
  start_position: optionalDecimal,
  user_address: v.optional(v.nullable(address)),
  tx_hash: optionalString,
  order_id: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  cloid: optionalString,
  maker_address: v.optional(v.nullable(address)),
  taker_address: v.optional(v.nullable(address)),
  twap_id: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  builder_address: v.optional(v.nullable(address)),
  builder_fee: optionalDecimal,
  deployer_fee: optionalDecimal,
  priority_gas: optionalDecimal,
  is_liquidation: v.optional(v.nullable(v.boolean())),
  /** altx and altx-rh: the venue's account number (its accounts are numbered, not addressed). */
  account_index: v.optional(v.nullable(v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'must be a decimal account number')))),
});

export const ORDER_EVENT_KINDS = ['placed', 'canceled', 'filled', 'triggered', 'force_canceled'] as const;

export const OrderEventRecord = keyed({
  dataset: v.literal('order_events'),
  event: v.picklist(ORDER_EVENT_KINDS),
  /** Order within the block; (block_number, seq) is unique per family. */
  block_number: v.pipe(v.number(), v.integer(), v.minValue(0)),
  seq: v.pipe(v.number(), v.integer(), v.minValue(0)),
  oid: v.pipe(v.number(), v.integer(), v.minValue(0)),
  user_address: address,
  side,
  status: v.string(),
  limit_price: optionalDecimal,
  size: optionalDecimal,
  orig_size: optionalDecimal,
  order_type: v.string(),
  tif: optionalString,
  reduce_only: v.boolean(),
  is_trigger: v.boolean(),
  is_position_tpsl: v.boolean(),
  trigger_condition: optionalString,
  trigger_price: optionalDecimal,
  cloid: optionalString,
});

const level = v.tuple([decimal, decimal, v.pipe(v.number(), v.integer(), v.minValue(0))]);
export const L2SnapshotRecord = v.pipe(
  keyed({
    dataset: v.literal('l2_snapshots'),
    /** Best first: at most 20 levels per side on the perpx families (their native cap), every level on altx and altx-rh. */
    bids: v.array(level),
    asks: v.array(level),
  }),
  v.check(
    (r) => !CAPPED_BOOK_FAMILIES.includes(r.family) || (r.bids.length <= NATIVE_BOOK_LEVELS && r.asks.length <= NATIVE_BOOK_LEVELS),
    `at most ${NATIVE_BOOK_LEVELS} levels per side on ${CAPPED_BOOK_FAMILIES.join(', ')}`,
  ),
);

const ACCOUNT_NUMBERED: readonly Family[] = ['altx', 'altx-rh'];
const owner = v.pipe(v.string(), v.regex(/^(0x[0-9a-f]{40}|\d{1,20})$/, 'must be a lowercase 0x address or an account number'));
const ownerFits = (family: Family, value: string) => (ACCOUNT_NUMBERED.includes(family) ? /^\d{1,20}$/ : /^0x/).test(value);

/**
 * One change to the order-level (L4) book, as the venue's node reports it: an order `new` in the
 * book (queued at the back of its price level, or just before `insert_before` there), its size
 * `update`d in place (a partial fill or a size-down modify keeps queue priority), or `remove`d
 * (filled, canceled, or re-placed). (block_number, seq) orders the diffs of a family.
 */
export const L4DiffRecord = v.pipe(
  keyed({
    dataset: v.literal('l4_diffs'),
    block_number: v.pipe(v.number(), v.integer(), v.minValue(0)),
    seq: v.pipe(v.number(), v.integer(), v.minValue(0)),
    oid: v.pipe(v.number(), v.integer(), v.minValue(0)),
    /** The owner: a wallet address, or on altx and altx-rh (whose accounts are numbered) the account number. */
    user_address: owner,
    side,
    price: decimal,
    diff_type: v.picklist(['new', 'update', 'remove'], 'must be new, update or remove'),
    /** The order's size after the diff: required on new and update, null on remove. */
    new_size: v.optional(v.nullable(decimal)),
    insert_before: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
  }),
  v.check((r) => ownerFits(r.family, r.user_address), 'user_address must be a 0x address, or an account number on altx and altx-rh'),
  v.check(
    (r) => (r.diff_type === 'remove') === (r.new_size === undefined || r.new_size === null),
    'new_size is required on new and update, and null on remove',
  ),
  v.check((r) => r.diff_type === 'new' || r.insert_before === undefined || r.insert_before === null, 'insert_before applies to new orders only'),
);

/**
 * A resting order in a checkpoint: [oid, owner, price, size, queued-at epoch ms or null when unknown,
 * and optionally the size it was placed with].
 */
const restingOrder = v.union([
  v.tuple([v.pipe(v.number(), v.integer(), v.minValue(0)), owner, decimal, decimal, v.nullable(epochMs)]),
  v.tuple([v.pipe(v.number(), v.integer(), v.minValue(0)), owner, decimal, decimal, v.nullable(epochMs), decimal]),
]);

/**
 * The whole order-level book of one market at `ts`, each side best price first and in queue order
 * within a price: it includes every diff of the family at or before (block_number, seq) and none
 * after. A book at any instant is the newest checkpoint at or before it plus the diffs after it.
 */
export const L4CheckpointRecord = v.pipe(
  keyed({
    dataset: v.literal('l4_checkpoints'),
    block_number: v.pipe(v.number(), v.integer(), v.minValue(0)),
    seq: v.pipe(v.number(), v.integer(), v.minValue(-1)),
    bids: v.pipe(v.array(restingOrder), v.maxLength(200_000)),
    asks: v.pipe(v.array(restingOrder), v.maxLength(200_000)),
  }),
  v.check((r) => [...r.bids, ...r.asks].every((o) => ownerFits(r.family, o[1])), 'owners must be 0x addresses, or account numbers on altx and altx-rh'),
);

export const FundingRecord = keyed({
  dataset: v.literal('funding'),
  funding_rate: decimal,
  premium: optionalDecimal,
});

export const OpenInterestRecord = keyed({
  dataset: v.literal('open_interest'),
  open_interest: decimal,
  mark_price: optionalDecimal,
  oracle_price: optionalDecimal,
  mid_price: optionalDecimal,
  day_ntl_volume: optionalDecimal,
});

export const LiquidationRecord = keyed({
  dataset: v.literal('liquidations'),
  trade_id: v.pipe(v.number(), v.integer(), v.minValue(0)),
  liquidated_user: address,
  liquidator_user: v.optional(v.nullable(address)),
  price: decimal,
  size: decimal,
  /** A = a long was liquidated, B = a short. */
  side,
  mark_price: optionalDecimal,
  closed_pnl: optionalDecimal,
  direction: optionalString,
  tx_hash: optionalString,
});

const accountIndex = v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'must be a decimal account number'));
const integer = v.pipe(v.number(), v.integer());

/**
 * An altx liquidation trade. The venue names both accounts of the trade (its accounts are numbered,
 * not addressed) and each side's state before it, instead of one liquidated user; `source` is
 * `bucket` for rows from the venue's finalized export (their `raw_json` is empty) and `ws` for rows
 * captured live.
 */
export const AltxLiquidationRecord = keyed({
  dataset: v.literal('altx_liquidations'),
  trade_id: v.pipe(v.number(), v.integer(), v.minValue(0)),
  transaction_time_us: integer,
  liquidation_type: v.pipe(v.string(), v.minLength(1)),
  price: decimal,
  size: decimal,
  usd_amount: decimal,
  ask_account: accountIndex,
  bid_account: accountIndex,
  ask_order_id: integer,
  bid_order_id: integer,
  is_maker_ask: v.boolean(),
  taker_position_size_before: decimal,
  maker_position_size_before: decimal,
  taker_entry_quote_before: decimal,
  maker_entry_quote_before: decimal,
  taker_initial_margin_fraction_before: decimal,
  maker_initial_margin_fraction_before: decimal,
  taker_allocated_margin_usdc_before: decimal,
  taker_allocated_margin_usdc_after: decimal,
  maker_allocated_margin_usdc_before: decimal,
  maker_allocated_margin_usdc_after: decimal,
  taker_fee: decimal,
  maker_fee: decimal,
  taker_position_sign_changed: v.boolean(),
  maker_position_sign_changed: v.boolean(),
  block_height: integer,
  tx_hash: v.pipe(v.string(), v.minLength(1)),
  raw_json: v.optional(v.nullable(v.string())),
  source: v.picklist(['ws', 'bucket']),
});

export const TRANSFER_KINDS = ['deposit', 'withdraw', 'send', 'spot_transfer', 'class_transfer', 'vault_deposit', 'vault_withdraw'] as const;

/**
 * A ledger movement of one address: deposits, withdrawals, sends between users, spot and
 * perp-to-spot class transfers, vault moves. `symbol` is the token (USDC, HYPE, ...), not a pair;
 * a send between two addresses is two rows, one per role.
 */
export const TransferRecord = v.strictObject({
  dataset: v.literal('transfers'),
  family: v.picklist(['perpx', 'spot'], 'must be perpx or spot'),
  symbol: v.pipe(v.string(), v.regex(/^[A-Z0-9]{1,20}$/, 'must be a token name such as USDC')),
  ts: epochMs,
  user_address: address,
  kind: v.picklist(TRANSFER_KINDS),
  role: v.picklist(['source', 'destination']),
  amount: decimal,
  usdc_value: decimal,
  counterparty: v.optional(v.nullable(address)),
  tx_hash: v.pipe(v.string(), v.minLength(1)),
});

/** An outcome side settled (hip4): whether it won, its settlement price and the contracts outstanding. */
export const SettlementRecord = keyed({
  dataset: v.literal('settlements'),
  resolution: v.picklist(['yes', 'no']),
  settle_price: decimal,
  open_interest: decimal,
});

/**
 * Node software upgrades seen on the chain (symbol `CHAIN`): `upgrade_started` when validators
 * begin running a new build, `upgrade_completed` when the network has moved to it (carrying when it
 * started, so the duration is known without the earlier record).
 */
export const ChainEventRecord = keyed({
  dataset: v.literal('chain_events'),
  kind: v.picklist(['upgrade_started', 'upgrade_completed']),
  commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{7,40}$/, 'must be a git commit hash')),
  started_at: v.optional(v.nullable(epochMs)),
});

/** TWAP orders' lifecycle: activated, then finished (fully executed) or terminated early. */
export const TwapRecord = keyed({
  dataset: v.literal('twaps'),
  twap_id: v.pipe(v.number(), v.integer(), v.minValue(0)),
  user_address: address,
  status: v.picklist(['activated', 'finished', 'terminated']),
  side,
  size: decimal,
  executed_size: decimal,
});

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** A spot pair's token registry entry (spot only). */
export const SpotPairDetails = v.strictObject({
  pair_index: count,
  name: v.pipe(v.string(), v.minLength(1)),
  is_canonical: v.boolean(),
  base_token: v.pipe(v.string(), v.minLength(1)),
  base_token_id: count,
  base_wei_decimals: count,
  quote_token_id: count,
  quote_sz_decimals: count,
  quote_wei_decimals: count,
});

/**
 * One side of a hip4 outcome market (hip4 only). `description` is the venue's raw pipe-delimited
 * metadata (`class:priceBinary|underlying:BTC|expiry:20261201-0800|targetPrice:70000|period:1d`).
 */
export const OutcomeSideDetails = v.strictObject({
  outcome_id: count,
  side: v.picklist([0, 1]),
  asset_id: count,
  name: v.pipe(v.string(), v.minLength(1)),
  side_name: v.pipe(v.string(), v.minLength(1)),
  description: v.string(),
  display_title: v.pipe(v.string(), v.minLength(1)),
  slug: v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/, 'must be a lowercase slug')),
  /**
   * The question (the venue's multi-choice ballot) the outcome belongs to, when it belongs to one:
   * every side record of every outcome of the question carries it, the fallback outcome's included
   * (its id is `fallback_outcome_id`; the others are the named choices).
   */
  question: v.optional(
    v.strictObject({
      question_id: count,
      name: v.pipe(v.string(), v.minLength(1)),
      description: v.string(),
      fallback_outcome_id: count,
    }),
  ),
});

export const InstrumentRecord = keyed({
  dataset: v.literal('instruments'),
  /** `ts` is when the instrument was listed. */
  delisted_at: v.optional(v.nullable(epochMs)),
  market_type: v.picklist(['perp', 'spot', 'outcome']),
  sz_decimals: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(18)),
  max_leverage: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1)))),
  quote: optionalString,
  dex: optionalString,
  spot_pair: v.optional(v.nullable(SpotPairDetails)),
  outcome: v.optional(v.nullable(OutcomeSideDetails)),
  /** altx and altx-rh: the venue's number for the market, which its API names markets by. */
  market_id: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
});

export type TradeRecord = v.InferOutput<typeof TradeRecord>;
export type OrderEventRecord = v.InferOutput<typeof OrderEventRecord>;
export type InstrumentRecord = v.InferOutput<typeof InstrumentRecord>;
export type LiquidationRecord = v.InferOutput<typeof LiquidationRecord>;
export type AltxLiquidationRecord = v.InferOutput<typeof AltxLiquidationRecord>;
export type TransferRecord = v.InferOutput<typeof TransferRecord>;
export type FundingRecord = v.InferOutput<typeof FundingRecord>;
export type SettlementRecord = v.InferOutput<typeof SettlementRecord>;
export type ChainEventRecord = v.InferOutput<typeof ChainEventRecord>;
export type TwapRecord = v.InferOutput<typeof TwapRecord>;
export type SpotPairDetails = v.InferOutput<typeof SpotPairDetails>;
export type OutcomeSideDetails = v.InferOutput<typeof OutcomeSideDetails>;
export type OpenInterestRecord = v.InferOutput<typeof OpenInterestRecord>;
export type L4DiffRecord = v.InferOutput<typeof L4DiffRecord>;
export type L4CheckpointRecord = v.InferOutput<typeof L4CheckpointRecord>;
export type PositionChangeRecord = v.InferOutput<typeof PositionChangeRecord>;
export type PositionSnapshotRecord = v.InferOutput<typeof PositionSnapshotRecord>;
export type AccountRecord = v.InferOutput<typeof AccountRecord>;

/**
 * Account positions (SPEC "Account and market positions") are built by the positions job from the
 * archived fills, not received from a feed: it writes these records through the same ingest path,
 * so compaction, the manifest and the readers treat them like any dataset. `account` is the
 * wallet address (core, hip3) or the account number (altx, altx-rh); files are sorted account
 * first (changes) or instant first (snapshots), so one account's rows sit in one row group.
 */
const POSITION_FAMILIES = ['perpx', 'hip3', 'altx', 'altx-rh'] as const;
const positionFamily = v.picklist(POSITION_FAMILIES, `must be one of ${POSITION_FAMILIES.join(', ')}`);
const account = v.pipe(v.string(), v.regex(/^(0x[0-9a-f]{40}|\d{1,20})$/, 'must be a lowercase 0x address or an account number'));
export const ACCOUNT_KINDS = ['user', 'settlement', 'insurance', 'system'] as const;
export const CHANGE_EVENT_TYPES = ['open', 'increase', 'reduce', 'close', 'flip', 'settlement', 'unchanged'] as const;
export const CHANGE_CAUSES = ['trade', 'liquidation', 'liquidation_counterparty', 'adl', 'settlement', 'unknown'] as const;
/**
 * How a leg joins the book of running positions: `ok` its size before is the book's (zero when the
 * book holds none); `inferred` the venue did not report the size before and the book's was taken;
 * `first_seen` the book holds no position but the venue says there was one (it opened before the
 * archive saw it): its size is adopted, its entry unknown; `quarantined` its size before
 * contradicts the book's: it is not applied as a fill, the size is re-anchored to the venue's size
 * after it and the entry becomes unknown.
 */
export const CONTINUITY = ['ok', 'inferred', 'first_seen', 'quarantined'] as const;
export const POSITION_QUALITY = ['complete', 'partial', 'degraded'] as const;

/** One leg of the change log: a fill of one account in one market, with its position before and after. */
export const PositionChangeRecord = v.strictObject({
  dataset: v.literal('position_changes'),
  family: positionFamily,
  symbol: v.pipe(v.string(), v.minLength(1), v.maxLength(40)),
  ts: epochMs,
  account,
  trade_id: v.pipe(v.number(), v.integer(), v.minValue(0)),
  side,
  price: decimal,
  size: decimal,
  start_position: decimal,
  end_position: decimal,
  entry_price_after: optionalDecimal,
  event_type: v.picklist(CHANGE_EVENT_TYPES),
  cause: v.picklist(CHANGE_CAUSES),
  continuity: v.picklist(CONTINUITY),
  direction: optionalString,
  closed_pnl: optionalDecimal,
  fee: optionalDecimal,
  fee_token: optionalString,
  crossed: v.optional(v.nullable(v.boolean())),
  order_id: v.optional(v.nullable(v.pipe(v.number(), v.integer()))),
  /** When the position this leg belongs to was opened (null when it opened before the archive saw it). */
  opened_at: v.optional(v.nullable(epochMs)),
  /** altx, altx-rh: whether the venue's finalized trade record already holds the leg. */
  finalized: v.optional(v.nullable(v.boolean())),
});

/**
 * One open position of one account at a snapshot instant `ts` (state after every leg before it;
 * exact UTC hours are the hourly snapshots, other instants live ones). Each snapshot also has one
 * marker row (empty `account` and `symbol`) so that an instant with no open position still records
 * that the change log was built through it.
 */
export const PositionSnapshotRecord = v.strictObject({
  dataset: v.literal('position_snapshots'),
  family: positionFamily,
  symbol: v.pipe(v.string(), v.maxLength(40)),
  ts: epochMs,
  account: v.union([account, v.literal('')]),
  size: decimal,
  entry_price: optionalDecimal,
  opened_at: v.optional(v.nullable(epochMs)),
  last_change_at: v.optional(v.nullable(epochMs)),
  mark_price: optionalDecimal,
  mark_time: v.optional(v.nullable(epochMs)),
  position_value: optionalDecimal,
  unrealized_pnl: optionalDecimal,
  funding_all_time: optionalDecimal,
  funding_since_open: optionalDecimal,
  funding_since_change: optionalDecimal,
  max_leverage: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1)))),
  account_kind: v.optional(v.nullable(v.picklist(ACCOUNT_KINDS))),
  quality: v.picklist(POSITION_QUALITY),
  finalized: v.optional(v.nullable(v.boolean())),
});

/**
 * The venue's account registry (altx, altx-rh: accounts are numbered): which L1 address owns an
 * account, and what kind of account it is. `ts` is when the account was first seen.
 */
export const AccountRecord = v.strictObject({
  dataset: v.literal('accounts'),
  family: v.picklist(['altx', 'altx-rh'], 'must be altx or altx-rh'),
  symbol: v.literal('ACCOUNTS'),
  ts: epochMs,
  account_index: v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'must be a decimal account number')),
  l1_address: v.optional(v.nullable(address)),
  account_type: v.pipe(v.number(), v.integer(), v.minValue(0)),
  account_kind: v.picklist(ACCOUNT_KINDS),
});

export interface Column {
  name: string;
  type: 'VARCHAR' | 'BIGINT' | 'BOOLEAN' | 'DOUBLE' | 'INTEGER';
}

const c = (name: string, type: Column['type']): Column => ({ name, type });
const KEY = [c('family', 'VARCHAR'), c('symbol', 'VARCHAR'), c('ts', 'BIGINT')];
const at = (iso: string) => Date.parse(iso);
/** A per-wallet rollup's columns (see account_liquidation_rollups_1h). */
const WALLET_ROLLUP_COLUMNS = [...KEY, c('address', 'VARCHAR'), c('bucket', 'INTEGER'), c('events', 'BIGINT'), c('max_notional', 'DOUBLE')];
const EVERY_FAMILY_SINCE = (start: number) => Object.fromEntries(FAMILIES.map((f) => [f, start])) as Record<Family, number>;

/** The bulk-export schemas (SPEC "Limits": Parquet with ZSTD, priced per GB with a minimum). */
export interface ExportSchema {
  name: 'trades' | 'order_events';
  usdPerGb: number;
  minimumUsd: number;
}

export interface DatasetDef {
  /** The ingest record (a valibot schema); absent on datasets that compaction derives from another. */
  record?: v.GenericSchema;
  columns: readonly Column[];
  /** Columns that identify a row within a family; later duplicates collapse onto the first. */
  uniqueBy: readonly string[];
  /**
   * Ids (the one `uniqueBy` column) at or above `from` were derived from content by a format that
   * carries none (node_trades): such a row gives way to any row with a venue id that is equal on
   * `sameAs`, columns both formats fill alike, so a row that two formats carried is kept once
   * (core/archive/dedupe.ts).
   */
  derivedIds?: { from: number; sameAs: readonly string[] };
  /** Partitioned per symbol (and day); `false` keeps one file per family and day for all symbols. */
  perSymbol: boolean;
  /**
   * A market series whose quality is measured (core/archive/cadence.ts): its files carry cadence
   * statistics and the quality routes report on it. Registries, ledgers, the positions the service
   * builds and the previews' rollups are not feeds.
   */
  quality?: true;
  /**
   * Compacted files of the whole family (no symbol) may still exist from before the dataset was
   * split per symbol (1-minute candles before 1.8.0): readers take a symbol's rows from them where
   * no file of the symbol's own holds the same slot (core/archive/files.ts `supersedes`).
   */
  familyWideBefore?: boolean;
  /**
   * `merge`: compaction merges the day's deltas into compacted files; `derivedFrom`: rebuilt from
   * that dataset's compacted rows, with `lookbackMs` of the source's rows before the slot too when
   * a slot's rows depend on earlier ones (a move over a window).
   */
  compaction: 'merge' | { derivedFrom: string; lookbackMs?: number };
  /**
   * The first covered instant per family (SPEC "Datasets and their coverage starts"; exact instants
   * from the real service where the spec gives only a month). Its keys are the families that have
   * the dataset; a window wholly before the start is answered empty without touching storage.
   */
  coverage: Readonly<Partial<Record<Family, number>>>;
  /** JSON-encoded columns (nested values). */
  json?: readonly string[];
  /**
   * Rows per Parquet row group (default 65,536). Datasets of large rows (a checkpoint holds a whole
   * book) keep a few rows a group, so reading one row decompresses only its group.
   */
  rowGroupRows?: number;
  /** How rows are sorted in every file (default: symbol, ts, then the unique key). */
  sortBy?: readonly string[];
  /**
   * A SQL predicate over the columns: the rows a closed hour's (or day's) fold keeps. The others
   * live only until their hour is folded (live position snapshots: the hourly ones stay).
   */
  keepWhenFolded?: string;
  export?: ExportSchema;
  /** One valid record (for ingest datasets), used by the docs and by the test that every dataset is wired end to end. */
  example?: Record<string, unknown>;
}

/**
 * Order-level books and their diffs: L4 on core and hip3 from 2026-03-10 and hip4 from 2026-05-02
 * (SPEC), spot from the real service's start; altx's L3 from March 2026; altx-rh's from its book
 * coverage (kept to derive its tick history; it has no L3 route).
 */
const L4_COVERAGE = {
  perpx: at('2026-03-10T00:00:00Z'),
  hip3: at('2026-03-10T00:00:00Z'),
  hip4: at('2026-05-02T07:47:00Z'),
  spot: at('2026-05-05T22:57:00Z'),
  altx: at('2026-03-05T03:33:00Z'),
  'altx-rh': at('2026-08-22T18:43:00Z'),
} as const;
const TS = at('2026-06-01T12:00:00Z');
/**
 * Where each family's change log starts (the real service: core 2025-05-25, hip3 2025-10-13; the
 * altx families from their trade coverage). Positions before it are `outside_coverage`.
 */
const POSITION_COVERAGE = {
  perpx: at('2025-05-25T00:00:00Z'),
  hip3: at('2025-10-13T00:00:00Z'),
  altx: at('2025-08-01T00:00:00Z'),
  'altx-rh': at('2026-06-26T20:10:26Z'),
} as const;
const ALICE = '0x00000000000000000000000000000000000a11ce';
/**
 * Trade ids derived from content (node_trades, which has no venue id) are at or above this: above
 * the venue's ids (about 10^15 in 2025) and below 2^53, exact as a JSON number and a BIGINT.
 */
export const DERIVED_TRADE_IDS_FROM = 2 ** 52;

export const DATASETS = {
  trades: {
    quality: true,
    record: TradeRecord,
    columns: [
      ...KEY,
      c('trade_id', 'BIGINT'),
      c('side', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('crossed', 'BOOLEAN'),
      c('fee', 'VARCHAR'),
      c('fee_token', 'VARCHAR'),
      c('closed_pnl', 'VARCHAR'),
      c('direction', 'VARCHAR'),
      c('start_position', 'VARCHAR'),
      c('user_address', 'VARCHAR'),
      c('tx_hash', 'VARCHAR'),
      c('order_id', 'BIGINT'),
      c('cloid', 'VARCHAR'),
      c('maker_address', 'VARCHAR'),
      c('taker_address', 'VARCHAR'),
      c('twap_id', 'BIGINT'),
      c('builder_address', 'VARCHAR'),
      c('builder_fee', 'VARCHAR'),
      c('deployer_fee', 'VARCHAR'),
      c('priority_gas', 'VARCHAR'),
      c('is_liquidation', 'BOOLEAN'),
      c('account_index', 'VARCHAR'),
    ],
    uniqueBy: ['trade_id'],
    // A trade in node_trades and in a fills format: same market, time, price, size and taker order.
    derivedIds: { from: DERIVED_TRADE_IDS_FROM, sameAs: ['symbol', 'ts', 'price', 'size', 'order_id'] },
    perSymbol: true,
    compaction: 'merge',
    coverage: {
      perpx: at('2023-04-15T03:31:00Z'),
      spot: at('2025-03-22T10:50:22Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      hip4: at('2026-05-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-06-26T20:10:26Z'),
    },
    export: { name: 'trades', usdPerGb: 8, minimumUsd: 15 },
    example: { dataset: 'trades', family: 'perpx', symbol: 'BTC', ts: TS, trade_id: 1, side: 'B', price: '65000.5', size: '0.01', user_address: ALICE },
  },
  order_events: {
    quality: true,
    record: OrderEventRecord,
    columns: [
      ...KEY,
      c('event', 'VARCHAR'),
      c('block_number', 'BIGINT'),
      c('seq', 'BIGINT'),
      c('oid', 'BIGINT'),
      c('user_address', 'VARCHAR'),
      c('side', 'VARCHAR'),
      c('status', 'VARCHAR'),
      c('limit_price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('orig_size', 'VARCHAR'),
      c('order_type', 'VARCHAR'),
      c('tif', 'VARCHAR'),
      c('reduce_only', 'BOOLEAN'),
      c('is_trigger', 'BOOLEAN'),
      c('is_position_tpsl', 'BOOLEAN'),
      c('trigger_condition', 'VARCHAR'),
      c('trigger_price', 'VARCHAR'),
      c('cloid', 'VARCHAR'),
    ],
    uniqueBy: ['block_number', 'seq'],
    perSymbol: true,
    compaction: 'merge',
    // Spot from its first order-level day: the node writes order statuses beside the raw book diffs (L4_COVERAGE).
    coverage: { perpx: at('2026-03-10T00:00:00Z'), hip3: at('2026-03-10T00:00:00Z'), hip4: at('2026-05-02T00:00:00Z'), spot: L4_COVERAGE.spot },
    export: { name: 'order_events', usdPerGb: 8, minimumUsd: 25 },
    example: {
      dataset: 'order_events',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      event: 'placed',
      block_number: 1,
      seq: 0,
      oid: 7,
      user_address: ALICE,
      side: 'B',
      status: 'open',
      limit_price: '65000',
      size: '0.01',
      orig_size: '0.01',
      order_type: 'Limit',
      reduce_only: false,
      is_trigger: false,
      is_position_tpsl: false,
    },
  },
  l2_snapshots: {
    quality: true,
    record: L2SnapshotRecord,
    columns: [...KEY, c('bids', 'VARCHAR'), c('asks', 'VARCHAR')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: true,
    compaction: 'merge',
    coverage: {
      perpx: at('2023-04-15T00:00:00Z'),
      spot: at('2026-05-05T19:56:00Z'),
      hip3: at('2026-02-16T16:57:00Z'),
      hip4: at('2026-05-01T00:00:00Z'),
      altx: at('2026-01-29T00:00:00Z'),
      'altx-rh': at('2026-08-22T18:43:00Z'),
    },
    json: ['bids', 'asks'],
    example: { dataset: 'l2_snapshots', family: 'perpx', symbol: 'BTC', ts: TS, bids: [['64999', '1.5', 3]], asks: [['65001', '2', 4]] },
  },
  l4_diffs: {
    quality: true,
    record: L4DiffRecord,
    columns: [
      ...KEY,
      c('block_number', 'BIGINT'),
      c('seq', 'BIGINT'),
      c('oid', 'BIGINT'),
      c('user_address', 'VARCHAR'),
      c('side', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('diff_type', 'VARCHAR'),
      c('new_size', 'VARCHAR'),
      c('insert_before', 'BIGINT'),
    ],
    uniqueBy: ['block_number', 'seq'],
    perSymbol: true,
    compaction: 'merge',
    coverage: L4_COVERAGE,
    example: {
      dataset: 'l4_diffs',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      block_number: 1,
      seq: 0,
      oid: 7,
      user_address: ALICE,
      side: 'B',
      price: '64999',
      diff_type: 'new',
      new_size: '0.5',
    },
  },
  l4_checkpoints: {
    quality: true,
    record: L4CheckpointRecord,
    columns: [...KEY, c('block_number', 'BIGINT'), c('seq', 'BIGINT'), c('bids', 'VARCHAR'), c('asks', 'VARCHAR')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: true,
    compaction: 'merge',
    coverage: L4_COVERAGE,
    json: ['bids', 'asks'],
    rowGroupRows: 4,
    example: {
      dataset: 'l4_checkpoints',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      block_number: 1,
      seq: 0,
      bids: [[7, ALICE, '64999', '0.5', TS]],
      asks: [[8, ALICE, '65001', '0.25', null]],
    },
  },
  /**
   * The checkpoints' resting orders, one row each (issue 43): derived by compaction from the JSON
   * sides of `l4_checkpoints`, so a book at an instant is shaped in SQL from columns instead of
   * parsing megabytes of JSON text. `rank` is the order's place in its side, best price first and
   * in queue order within a price; `orig_size` only where the checkpoint carried one. A checkpoint
   * without rows here yet (its hour not compacted) is read from its JSON sides.
   */
  l4_checkpoint_orders: {
    columns: [
      ...KEY,
      c('block_number', 'BIGINT'),
      c('seq', 'BIGINT'),
      c('side', 'VARCHAR'),
      c('rank', 'INTEGER'),
      c('oid', 'BIGINT'),
      c('user_address', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('placed_at', 'BIGINT'),
      c('orig_size', 'VARCHAR'),
    ],
    uniqueBy: ['symbol', 'ts', 'side', 'rank'],
    perSymbol: true,
    compaction: { derivedFrom: 'l4_checkpoints' },
    coverage: L4_COVERAGE,
  },
  funding: {
    quality: true,
    record: FundingRecord,
    columns: [...KEY, c('funding_rate', 'VARCHAR'), c('premium', 'VARCHAR')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: true,
    compaction: 'merge',
    coverage: {
      perpx: at('2023-05-01T00:00:00Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-08-22T18:43:00Z'),
    },
    example: { dataset: 'funding', family: 'perpx', symbol: 'BTC', ts: TS, funding_rate: '0.0000125', premium: '0.0001' },
  },
  open_interest: {
    quality: true,
    record: OpenInterestRecord,
    columns: [
      ...KEY,
      c('open_interest', 'VARCHAR'),
      c('mark_price', 'VARCHAR'),
      c('oracle_price', 'VARCHAR'),
      c('mid_price', 'VARCHAR'),
      c('day_ntl_volume', 'VARCHAR'),
    ],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: true,
    compaction: 'merge',
    coverage: {
      perpx: at('2023-05-01T00:00:00Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      hip4: at('2026-05-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-08-22T18:43:00Z'),
    },
    example: { dataset: 'open_interest', family: 'perpx', symbol: 'BTC', ts: TS, open_interest: '1200.5', mark_price: '65000', oracle_price: '64990' },
  },
  liquidations: {
    quality: true,
    record: LiquidationRecord,
    columns: [
      ...KEY,
      c('trade_id', 'BIGINT'),
      c('liquidated_user', 'VARCHAR'),
      c('liquidator_user', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('side', 'VARCHAR'),
      c('mark_price', 'VARCHAR'),
      c('closed_pnl', 'VARCHAR'),
      c('direction', 'VARCHAR'),
      c('tx_hash', 'VARCHAR'),
    ],
    uniqueBy: ['trade_id', 'liquidated_user'],
    perSymbol: true,
    compaction: 'merge',
    coverage: { perpx: at('2025-12-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
    example: { dataset: 'liquidations', family: 'perpx', symbol: 'BTC', ts: TS, trade_id: 2, liquidated_user: ALICE, price: '64000', size: '0.5', side: 'A' },
  },
  altx_liquidations: {
    quality: true,
    record: AltxLiquidationRecord,
    columns: [
      ...KEY,
      c('trade_id', 'BIGINT'),
      c('transaction_time_us', 'BIGINT'),
      c('liquidation_type', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('usd_amount', 'VARCHAR'),
      c('ask_account', 'VARCHAR'),
      c('bid_account', 'VARCHAR'),
      c('ask_order_id', 'BIGINT'),
      c('bid_order_id', 'BIGINT'),
      c('is_maker_ask', 'BOOLEAN'),
      c('taker_position_size_before', 'VARCHAR'),
      c('maker_position_size_before', 'VARCHAR'),
      c('taker_entry_quote_before', 'VARCHAR'),
      c('maker_entry_quote_before', 'VARCHAR'),
      c('taker_initial_margin_fraction_before', 'VARCHAR'),
      c('maker_initial_margin_fraction_before', 'VARCHAR'),
      c('taker_allocated_margin_usdc_before', 'VARCHAR'),
      c('taker_allocated_margin_usdc_after', 'VARCHAR'),
      c('maker_allocated_margin_usdc_before', 'VARCHAR'),
      c('maker_allocated_margin_usdc_after', 'VARCHAR'),
      c('taker_fee', 'VARCHAR'),
      c('maker_fee', 'VARCHAR'),
      c('taker_position_sign_changed', 'BOOLEAN'),
      c('maker_position_sign_changed', 'BOOLEAN'),
      c('block_height', 'BIGINT'),
      c('tx_hash', 'VARCHAR'),
      c('raw_json', 'VARCHAR'),
      c('source', 'VARCHAR'),
    ],
    uniqueBy: ['trade_id'],
    perSymbol: true,
    compaction: 'merge',
    coverage: { altx: at('2026-06-10T00:00:00Z') },
    example: {
      // Inside altx's coverage, which starts after TS.
      dataset: 'altx_liquidations',
      family: 'altx',
      symbol: 'ETH',
      ts: TS + 14 * 86_400_000,
      trade_id: 9,
      transaction_time_us: (TS + 14 * 86_400_000) * 1000,
      liquidation_type: 'liquidation',
      price: '3400.5',
      size: '0.5',
      usd_amount: '1700.25',
      ask_account: '281474976710654',
      bid_account: '12345',
      ask_order_id: 11,
      bid_order_id: 12,
      is_maker_ask: false,
      taker_position_size_before: '0.5',
      maker_position_size_before: '0',
      taker_entry_quote_before: '1750',
      maker_entry_quote_before: '0',
      taker_initial_margin_fraction_before: '0.05',
      maker_initial_margin_fraction_before: '0.05',
      taker_allocated_margin_usdc_before: '0',
      taker_allocated_margin_usdc_after: '0',
      maker_allocated_margin_usdc_before: '0',
      maker_allocated_margin_usdc_after: '0',
      taker_fee: '0.5',
      maker_fee: '0',
      taker_position_sign_changed: false,
      maker_position_sign_changed: false,
      block_height: 100,
      tx_hash: '0xdef',
      source: 'bucket',
    },
  },
  // The ledger feeds account.transfer; it has no public route of its own.
  transfers: {
    record: TransferRecord,
    columns: [
      ...KEY,
      c('user_address', 'VARCHAR'),
      c('kind', 'VARCHAR'),
      c('role', 'VARCHAR'),
      c('amount', 'VARCHAR'),
      c('usdc_value', 'VARCHAR'),
      c('counterparty', 'VARCHAR'),
      c('tx_hash', 'VARCHAR'),
    ],
    uniqueBy: ['tx_hash', 'user_address', 'role'],
    perSymbol: true,
    compaction: 'merge',
    coverage: { perpx: at('2025-12-01T00:00:00Z'), spot: at('2025-12-01T00:00:00Z') },
    example: {
      dataset: 'transfers',
      family: 'perpx',
      symbol: 'USDC',
      ts: TS,
      user_address: ALICE,
      kind: 'deposit',
      role: 'destination',
      amount: '1000',
      usdc_value: '1000',
      tx_hash: '0xabc',
    },
  },
  // Upstream event streams behind webhook events, without public routes of their own.
  settlements: {
    record: SettlementRecord,
    columns: [...KEY, c('resolution', 'VARCHAR'), c('settle_price', 'VARCHAR'), c('open_interest', 'VARCHAR')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: true,
    compaction: 'merge',
    coverage: { hip4: at('2026-05-01T00:00:00Z') },
    example: { dataset: 'settlements', family: 'hip4', symbol: '#10', ts: TS, resolution: 'yes', settle_price: '1', open_interest: '5000' },
  },
  chain_events: {
    record: ChainEventRecord,
    columns: [...KEY, c('kind', 'VARCHAR'), c('commit', 'VARCHAR'), c('started_at', 'BIGINT')],
    uniqueBy: ['kind', 'commit'],
    perSymbol: false,
    compaction: 'merge',
    coverage: { perpx: at('2025-12-01T00:00:00Z') },
    example: { dataset: 'chain_events', family: 'perpx', symbol: 'CHAIN', ts: TS, kind: 'upgrade_started', commit: 'a1b2c3d' },
  },
  twaps: {
    record: TwapRecord,
    columns: [
      ...KEY,
      c('twap_id', 'BIGINT'),
      c('user_address', 'VARCHAR'),
      c('status', 'VARCHAR'),
      c('side', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('executed_size', 'VARCHAR'),
    ],
    uniqueBy: ['twap_id', 'status'],
    perSymbol: true,
    compaction: 'merge',
    coverage: { perpx: at('2026-03-10T00:00:00Z'), hip3: at('2026-03-10T00:00:00Z'), spot: at('2026-03-10T00:00:00Z') },
    example: {
      dataset: 'twaps',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      twap_id: 3,
      user_address: ALICE,
      status: 'activated',
      side: 'B',
      size: '1',
      executed_size: '0',
    },
  },
  instruments: {
    record: InstrumentRecord,
    columns: [
      ...KEY,
      c('delisted_at', 'BIGINT'),
      c('market_type', 'VARCHAR'),
      c('sz_decimals', 'INTEGER'),
      c('max_leverage', 'INTEGER'),
      c('quote', 'VARCHAR'),
      c('dex', 'VARCHAR'),
      c('spot_pair', 'VARCHAR'),
      c('outcome', 'VARCHAR'),
      c('market_id', 'BIGINT'),
    ],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: false,
    compaction: 'merge',
    // The registry is point in time from the first listing on.
    coverage: EVERY_FAMILY_SINCE(0),
    json: ['spot_pair', 'outcome'],
    example: { dataset: 'instruments', family: 'perpx', symbol: 'BTC', ts: TS, market_type: 'perp', sz_decimals: 5, max_leverage: 40 },
  },
  // Built by the positions job from trades (see PositionChangeRecord); one account's legs sit together.
  position_changes: {
    record: PositionChangeRecord,
    columns: [
      c('family', 'VARCHAR'),
      c('symbol', 'VARCHAR'),
      c('ts', 'BIGINT'),
      c('account', 'VARCHAR'),
      c('trade_id', 'BIGINT'),
      c('side', 'VARCHAR'),
      c('price', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('start_position', 'VARCHAR'),
      c('end_position', 'VARCHAR'),
      c('entry_price_after', 'VARCHAR'),
      c('event_type', 'VARCHAR'),
      c('cause', 'VARCHAR'),
      c('continuity', 'VARCHAR'),
      c('direction', 'VARCHAR'),
      c('closed_pnl', 'VARCHAR'),
      c('fee', 'VARCHAR'),
      c('fee_token', 'VARCHAR'),
      c('crossed', 'BOOLEAN'),
      c('order_id', 'BIGINT'),
      c('opened_at', 'BIGINT'),
      c('finalized', 'BOOLEAN'),
    ],
    uniqueBy: ['account', 'trade_id'],
    sortBy: ['account', 'ts', 'trade_id'],
    perSymbol: false,
    compaction: 'merge',
    rowGroupRows: 8_192,
    coverage: POSITION_COVERAGE,
    example: {
      dataset: 'position_changes',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      account: ALICE,
      trade_id: 1,
      side: 'B',
      price: '65000.5',
      size: '0.01',
      start_position: '0',
      end_position: '0.01',
      entry_price_after: '65000.5',
      event_type: 'open',
      cause: 'trade',
      continuity: 'ok',
      opened_at: TS,
    },
  },
  // Written by the positions job: every open position at each snapshot instant, plus one marker row per instant.
  position_snapshots: {
    record: PositionSnapshotRecord,
    columns: [
      c('family', 'VARCHAR'),
      c('symbol', 'VARCHAR'),
      c('ts', 'BIGINT'),
      c('account', 'VARCHAR'),
      c('size', 'VARCHAR'),
      c('entry_price', 'VARCHAR'),
      c('opened_at', 'BIGINT'),
      c('last_change_at', 'BIGINT'),
      c('mark_price', 'VARCHAR'),
      c('mark_time', 'BIGINT'),
      c('position_value', 'VARCHAR'),
      c('unrealized_pnl', 'VARCHAR'),
      c('funding_all_time', 'VARCHAR'),
      c('funding_since_open', 'VARCHAR'),
      c('funding_since_change', 'VARCHAR'),
      c('max_leverage', 'INTEGER'),
      c('account_kind', 'VARCHAR'),
      c('quality', 'VARCHAR'),
      c('finalized', 'BOOLEAN'),
    ],
    uniqueBy: ['account', 'symbol', 'ts'],
    sortBy: ['ts', 'account', 'symbol'],
    // Live snapshots (every few minutes) serve the open hour; once it closes, its hourly snapshot and legs do.
    keepWhenFolded: 'ts % 3600000 = 0',
    perSymbol: false,
    compaction: 'merge',
    rowGroupRows: 8_192,
    coverage: POSITION_COVERAGE,
    example: {
      dataset: 'position_snapshots',
      family: 'perpx',
      symbol: 'BTC',
      ts: TS,
      account: ALICE,
      size: '0.01',
      entry_price: '65000.5',
      opened_at: TS - 60_000,
      mark_price: '65100',
      mark_time: TS - 1_000,
      position_value: '651',
      unrealized_pnl: '0.995',
      quality: 'complete',
    },
  },
  // altx and altx-rh number their accounts; this registry maps L1 addresses to them and names system accounts.
  accounts: {
    record: AccountRecord,
    columns: [...KEY, c('account_index', 'VARCHAR'), c('l1_address', 'VARCHAR'), c('account_type', 'INTEGER'), c('account_kind', 'VARCHAR')],
    uniqueBy: ['account_index'],
    perSymbol: false,
    compaction: 'merge',
    coverage: { altx: at('2025-08-01T00:00:00Z'), 'altx-rh': at('2026-06-26T20:10:26Z') },
    example: {
      dataset: 'accounts',
      family: 'altx',
      symbol: 'ACCOUNTS',
      ts: TS,
      account_index: '12345',
      l1_address: ALICE,
      account_type: 0,
      account_kind: 'user',
    },
  },
  // One row per symbol and minute with at least one trade, rebuilt from the compacted trades.
  candles_1m: {
    quality: true,
    columns: [
      ...KEY,
      c('open', 'DOUBLE'),
      c('high', 'DOUBLE'),
      c('low', 'DOUBLE'),
      c('close', 'DOUBLE'),
      c('volume', 'DOUBLE'),
      c('quote_volume', 'DOUBLE'),
      c('trade_count', 'BIGINT'),
      c('open_ts', 'BIGINT'),
      c('close_ts', 'BIGINT'),
    ],
    uniqueBy: ['symbol', 'ts'],
    // Per symbol since 1.8.0, so one market's candle read opens that market's files alone.
    perSymbol: true,
    familyWideBefore: true,
    compaction: { derivedFrom: 'trades' },
    coverage: {
      perpx: at('2025-03-22T12:00:00Z'),
      spot: at('2025-03-22T10:50:00Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      hip4: at('2026-05-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-06-26T20:10:00Z'),
    },
  },
  /**
   * Liquidation events (one per account, market and instant, as market.liquidation collapses them)
   * counted per symbol, UTC hour and notional bucket (`bucket` = floor(16 log10 notional), 16 a
   * decade), with the largest notional of each: the estimate reads a bounded number of these rows
   * however long its lookback (functions/core/detect/rollups.ts).
   */
  liquidation_rollups_1h: {
    columns: [...KEY, c('bucket', 'INTEGER'), c('events', 'BIGINT'), c('max_notional', 'DOUBLE')],
    uniqueBy: ['symbol', 'ts', 'bucket'],
    perSymbol: false,
    compaction: { derivedFrom: 'liquidations' },
    coverage: { perpx: at('2025-12-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  },
  /**
   * Per-wallet rollups of the account types (account.liquidated, account.fill, account.transfer):
   * events per wallet (`address`), symbol, UTC hour and value bucket, as the types' detectors
   * collapse them (functions/core/archive/sql.ts ROLLUPS). Sorted by wallet first, so an estimate
   * for an account's few watched wallets reads the row groups holding them.
   */
  account_liquidation_rollups_1h: {
    columns: WALLET_ROLLUP_COLUMNS,
    uniqueBy: ['address', 'symbol', 'ts', 'bucket'],
    sortBy: ['address', 'ts', 'symbol', 'bucket'],
    perSymbol: false,
    compaction: { derivedFrom: 'liquidations' },
    coverage: { perpx: at('2025-12-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  },
  fill_rollups_1h: {
    columns: WALLET_ROLLUP_COLUMNS,
    uniqueBy: ['address', 'symbol', 'ts', 'bucket'],
    sortBy: ['address', 'ts', 'symbol', 'bucket'],
    perSymbol: false,
    compaction: { derivedFrom: 'trades' },
    coverage: {
      perpx: at('2023-04-15T03:31:00Z'),
      spot: at('2025-03-22T10:50:22Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      hip4: at('2026-05-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-06-26T20:10:26Z'),
    },
  },
  transfer_rollups_1h: {
    columns: WALLET_ROLLUP_COLUMNS,
    uniqueBy: ['address', 'symbol', 'ts', 'bucket'],
    sortBy: ['address', 'ts', 'symbol', 'bucket'],
    perSymbol: false,
    compaction: { derivedFrom: 'transfers' },
    coverage: { perpx: at('2025-12-01T00:00:00Z'), spot: at('2025-12-01T00:00:00Z') },
  },
  /**
   * Reductions (functions/core/archive/sql.ts REDUCTIONS): per symbol and hour, only the rows a
   * minute detector needs, plus one `marker` row per symbol-hour with source rows. Settled
   * (on-the-hour) funding rates for market.funding_flip.
   */
  funding_rates_1h: {
    columns: [...KEY, c('funding_rate', 'VARCHAR'), c('marker', 'BOOLEAN')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: false,
    compaction: { derivedFrom: 'funding' },
    coverage: {
      perpx: at('2023-05-01T00:00:00Z'),
      hip3: at('2026-02-01T00:00:00Z'),
      altx: at('2025-08-01T00:00:00Z'),
      'altx-rh': at('2026-08-22T18:43:00Z'),
    },
  },
  /** The first 50 priority gas payments of 1.5 native tokens or more per perpx symbol and hour, for market.pga_payment. */
  pga_payments_1h: {
    columns: [...KEY, c('trade_id', 'BIGINT'), c('user_address', 'VARCHAR'), c('amount', 'DOUBLE'), c('marker', 'BOOLEAN')],
    uniqueBy: ['symbol', 'ts', 'trade_id'],
    perSymbol: false,
    compaction: { derivedFrom: 'trades' },
    coverage: { perpx: at('2023-04-15T03:31:00Z') },
  },
  /** hip3 oracle updates that move 0.1% or more, their predecessors, and each symbol-hour's first and last, for oracle.jump. */
  oracle_moves_1h: {
    columns: [...KEY, c('oracle_price', 'VARCHAR'), c('prev_ts', 'BIGINT'), c('prev_price', 'VARCHAR'), c('marker', 'BOOLEAN')],
    uniqueBy: ['symbol', 'ts'],
    perSymbol: false,
    compaction: { derivedFrom: 'open_interest' },
    coverage: { hip3: at('2026-02-01T00:00:00Z') },
  },
  /** Liquidated notional and fills per market and minute, for market.liquidation_burst. */
  liquidation_minutes_1h: {
    columns: [...KEY, c('notional', 'DOUBLE'), c('fills', 'BIGINT'), c('marker', 'BOOLEAN')],
    uniqueBy: ['symbol', 'ts', 'marker'],
    perSymbol: false,
    compaction: { derivedFrom: 'liquidations' },
    coverage: { perpx: at('2025-12-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  },
  /**
   * market.oi_delta's crossings (functions/core/archive/sql.ts oiCrossingsSql): per market, slot
   * (`ts` the hour, or the day in day files; `slot_hours` says which), menu window and direction,
   * histograms of the moves that can fire (`upper`: the move, `lower`: the previous row's move the
   * same way, `first`: the move of those that fire at the lowest threshold) with the largest move.
   * A move over a window reaches back into the previous slot: derived with two hours before it.
   */
  oi_crossings: {
    columns: [
      ...KEY,
      c('slot_hours', 'INTEGER'),
      c('window_s', 'INTEGER'),
      c('direction', 'VARCHAR'),
      c('kind', 'VARCHAR'),
      c('bucket', 'INTEGER'),
      c('events', 'BIGINT'),
      c('max_delta', 'DOUBLE'),
    ],
    uniqueBy: ['symbol', 'ts', 'slot_hours', 'window_s', 'direction', 'kind', 'bucket'],
    perSymbol: false,
    compaction: { derivedFrom: 'open_interest', lookbackMs: 2 * 3_600_000 },
    coverage: { perpx: at('2023-05-01T00:00:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  },
  /**
   * Per-wallet statistics for `/wallets/classify` (functions/core/archive/wallet-stats-sql.ts), one
   * dataset per source: per wallet, symbol and slot (`ts` the compacted hour, or the folded day;
   * `slot_hours` 1 or 24), what the day's metrics add up from. A day's read is bounded by the
   * wallets (and markets) of that day, not by its fills and order events. Sorted by wallet.
   */
  wallet_fill_stats: {
    columns: [
      ...KEY,
      c('address', 'VARCHAR'),
      c('slot_hours', 'INTEGER'),
      c('fills', 'BIGINT'),
      c('buy_volume', 'DOUBLE'),
      c('sell_volume', 'DOUBLE'),
      c('maker_fills', 'BIGINT'),
      c('known_side_fills', 'BIGINT'),
      c('max_fill', 'DOUBLE'),
      c('fees', 'DOUBLE'),
      c('pnl', 'DOUBLE'),
      c('hour_mask', 'INTEGER'),
      c('liquidations', 'BIGINT'),
      c('hold_ms', 'BIGINT'),
      c('holds', 'BIGINT'),
    ],
    uniqueBy: ['address', 'symbol', 'ts', 'slot_hours'],
    sortBy: ['address', 'ts', 'symbol'],
    perSymbol: false,
    compaction: { derivedFrom: 'position_changes' },
    coverage: { perpx: POSITION_COVERAGE.perpx, hip3: POSITION_COVERAGE.hip3 },
  },
  wallet_order_stats: {
    columns: [
      ...KEY,
      c('address', 'VARCHAR'),
      c('slot_hours', 'INTEGER'),
      c('orders', 'BIGINT'),
      c('canceled', 'BIGINT'),
      c('filled', 'BIGINT'),
      c('ioc', 'BIGINT'),
      c('alo', 'BIGINT'),
      c('tpsl', 'BIGINT'),
      c('triggers', 'BIGINT'),
      c('cloids', 'BIGINT'),
      c('notional_sum', 'DOUBLE'),
      c('notionals', 'BIGINT'),
      c('max_notional', 'DOUBLE'),
      c('cancel_speeds', 'VARCHAR'),
    ],
    uniqueBy: ['address', 'symbol', 'ts', 'slot_hours'],
    sortBy: ['address', 'ts', 'symbol'],
    perSymbol: false,
    compaction: { derivedFrom: 'order_events' },
    coverage: { perpx: at('2026-03-10T00:00:00Z'), hip3: at('2026-03-10T00:00:00Z') },
    // Placement-to-cancel times and how many orders took each: [[ms, orders], ...].
    json: ['cancel_speeds'],
  },
  wallet_trade_stats: {
    columns: [
      ...KEY,
      c('address', 'VARCHAR'),
      c('slot_hours', 'INTEGER'),
      c('builder_address', 'VARCHAR'),
      c('marked', 'BIGINT'),
      c('twap_fills', 'BIGINT'),
      c('priority_gas', 'DOUBLE'),
      c('builder_fees', 'DOUBLE'),
      c('builder_trades', 'BIGINT'),
    ],
    uniqueBy: ['address', 'symbol', 'ts', 'slot_hours', 'builder_address'],
    sortBy: ['address', 'ts', 'symbol', 'builder_address'],
    perSymbol: false,
    compaction: { derivedFrom: 'trades' },
    coverage: { perpx: at('2023-04-15T03:31:00Z'), hip3: at('2026-02-01T00:00:00Z') },
  },
} as const satisfies Record<string, DatasetDef>;

export type Dataset = keyof typeof DATASETS;
/** Datasets that arrive through ingest (they have a record schema); the rest are derived at compaction. */
export type IngestedDataset = { [D in Dataset]: (typeof DATASETS)[D] extends { record: v.GenericSchema } ? D : never }[Dataset];
export type DerivedDataset = Exclude<Dataset, IngestedDataset>;

type RecordSchemaOf<D extends IngestedDataset> = (typeof DATASETS)[D]['record'];

/** Every ingest record, discriminated by `dataset`: exactly the registry's record schemas. */
export const NormalizedRecord = v.variant(
  'dataset',
  Object.values(DATASETS).flatMap((d) => ('record' in d ? [d.record] : [])) as RecordSchemaOf<IngestedDataset>[],
);
export type NormalizedRecord = v.InferOutput<typeof NormalizedRecord>;
export type RecordOf<D extends IngestedDataset> = Extract<NormalizedRecord, { dataset: D }>;

export const DATASET_NAMES = Object.keys(DATASETS) as Dataset[];

/** Rows per Parquet row group, unless a dataset says otherwise: a 1000-row page falls in one or two groups. */
export const ROW_GROUP_ROWS = 65_536;
export const rowGroupRowsOf = (dataset: Dataset): number => (DATASETS[dataset] as DatasetDef).rowGroupRows ?? ROW_GROUP_ROWS;
/** The order rows are written in, in every file of a dataset. */
export function sortOrderOf(dataset: Dataset): string[] {
  const def: DatasetDef = DATASETS[dataset];
  return [...(def.sortBy ?? ['symbol', 'ts', ...def.uniqueBy.filter((c) => c !== 'symbol' && c !== 'ts')])];
}
export const INGESTED_DATASETS = DATASET_NAMES.filter((d): d is IngestedDataset => DATASETS[d].compaction === 'merge');
export const DERIVED_DATASETS = DATASET_NAMES.filter((d): d is DerivedDataset => DATASETS[d].compaction !== 'merge');

/** The families that have a dataset: the keys of its coverage. */
export function familiesOf(dataset: Dataset): Family[] {
  const coverage: DatasetDef['coverage'] = DATASETS[dataset].coverage;
  return FAMILIES.filter((f) => coverage[f] !== undefined);
}

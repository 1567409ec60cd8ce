/**
 * Bulk export: the request and response shapes of `/v1/exports`, and the versioned Parquet schemas
 * the files are written in. A schema version is a promise: its columns, their order and their types
 * never change; a change is a new version (`trades.v2`) beside the old one.
 */
import * as v from 'valibot';
import { FAMILIES } from './venues.ts';
import { LATEST_EPOCH_MS, booleanParam, integerParam, stringParam } from './params.ts';
import type { Dataset } from './datasets.ts';

/** The schemas a client can ask for (SPEC "Limits": trades and order events only). */
export const EXPORT_SCHEMAS = ['trades', 'order_events'] as const;
export type ExportSchemaName = (typeof EXPORT_SCHEMAS)[number];

/** Datasets a client may try to export that have no standalone export schema (SPEC "Limits"). */
const NOT_EXPORTABLE = ['candles', 'order_flow', 'breadth'] as const;

/** One column of an export file: its name, its Parquet (DuckDB) type, and what it holds. */
export interface ExportColumn {
  name: string;
  type: 'VARCHAR' | 'BIGINT' | 'BOOLEAN' | 'TIMESTAMP';
  /** The value, as a DuckDB expression over the archive dataset's columns. */
  sql: string;
  description: string;
}

export interface ExportFormat {
  /** The archive dataset the rows come from. */
  dataset: Extract<Dataset, ExportSchemaName>;
  /** Written into each file's key-value metadata and every job, e.g. `trades.v1`. */
  version: string;
  columns: readonly ExportColumn[];
  /** Row order inside a file: time, then the dataset's unique key. */
  orderBy: readonly string[];
}

const col = (name: string, type: ExportColumn['type'], description: string, sql: string = name): ExportColumn => ({ name, type, sql, description });
// Stored with millisecond units and no zone adjustment: the value is UTC (readers see a plain TIMESTAMP).
const TIME = col('timestamp', 'TIMESTAMP', 'Event time, UTC, millisecond precision', 'make_timestamp(ts * 1000)::TIMESTAMP_MS');
const TS = col('ts', 'BIGINT', 'Event time, Unix epoch milliseconds');
const DECIMAL = 'decimal string, exactly as the REST routes serve it';

/** Decimals stay strings (exact, as REST serves them); ids are 64-bit integers; times are both a UTC timestamp and epoch ms. */
export const EXPORT_FORMATS: Readonly<Record<ExportSchemaName, ExportFormat>> = {
  trades: {
    dataset: 'trades',
    version: 'trades.v1',
    orderBy: ['ts', 'trade_id'],
    columns: [
      col('family', 'VARCHAR', 'Venue family (perpx, spot, hip3, hip4, altx, altx-rh)'),
      col('symbol', 'VARCHAR', "Market symbol in its family's form"),
      TIME,
      TS,
      col('trade_id', 'BIGINT', 'Trade id, unique within the family'),
      col('side', 'VARCHAR', "B buy, A sell (the taker's side)"),
      col('price', 'VARCHAR', `Price, ${DECIMAL}`),
      col('size', 'VARCHAR', `Size in the base asset, ${DECIMAL}`),
      col('crossed', 'BOOLEAN', "True when the row's user was the taker"),
      col('fee', 'VARCHAR', `Fee (negative: a maker rebate), ${DECIMAL}`),
      col('fee_token', 'VARCHAR', 'Token the fee is paid in'),
      col('closed_pnl', 'VARCHAR', `Realized PnL on a closing fill, ${DECIMAL}`),
      col('direction', 'VARCHAR', 'Label such as Open Long or Close Short'),
      col('start_position', 'VARCHAR', `Position size before the trade, ${DECIMAL}`),
      col('user_address', 'VARCHAR', 'Wallet address'),
      col('tx_hash', 'VARCHAR', 'Chain transaction hash'),
      col('order_id', 'BIGINT', 'Order id'),
      col('cloid', 'VARCHAR', 'Client order id'),
      col('maker_address', 'VARCHAR', 'Maker wallet'),
      col('taker_address', 'VARCHAR', 'Taker wallet'),
      col('twap_id', 'BIGINT', 'TWAP id of a TWAP fill'),
      col('builder_address', 'VARCHAR', 'Builder wallet'),
      col('builder_fee', 'VARCHAR', `Builder fee, ${DECIMAL}`),
      col('deployer_fee', 'VARCHAR', `Deployer fee (hip3), ${DECIMAL}`),
      col('priority_gas', 'VARCHAR', `Priority gas (HYPE), ${DECIMAL}`),
      col('account_index', 'VARCHAR', 'Account index (altx, altx-rh)'),
    ],
  },
  order_events: {
    dataset: 'order_events',
    version: 'order_events.v1',
    orderBy: ['ts', 'block_number', 'seq'],
    columns: [
      col('family', 'VARCHAR', 'Venue family (perpx, hip3, hip4)'),
      col('symbol', 'VARCHAR', "Market symbol in its family's form"),
      TIME,
      TS,
      col('block_number', 'BIGINT', 'Block of the event'),
      col('seq', 'BIGINT', 'Position of the event in its block'),
      col('event', 'VARCHAR', 'placed, canceled, filled, triggered, force_canceled, …'),
      col('oid', 'BIGINT', 'Order id'),
      col('user_address', 'VARCHAR', 'Wallet address'),
      col('side', 'VARCHAR', 'B buy, A sell'),
      col('status', 'VARCHAR', 'Order status after the event'),
      col('limit_price', 'VARCHAR', `Limit price, ${DECIMAL}`),
      col('size', 'VARCHAR', `Remaining size, ${DECIMAL}`),
      col('orig_size', 'VARCHAR', `Original size, ${DECIMAL}`),
      col('order_type', 'VARCHAR', 'Order type label'),
      col('tif', 'VARCHAR', 'Time in force'),
      col('reduce_only', 'BOOLEAN', 'Reduce-only order'),
      col('is_trigger', 'BOOLEAN', 'Trigger (stop or take-profit) order'),
      col('is_position_tpsl', 'BOOLEAN', 'Attached to a position as TP/SL'),
      col('trigger_condition', 'VARCHAR', 'Trigger condition text'),
      col('trigger_price', 'VARCHAR', `Trigger price, ${DECIMAL}`),
      col('cloid', 'VARCHAR', 'Client order id'),
    ],
  },
};

/** Every job covers at most this many symbol-days: the partition list travels in the state machine's input (256 KB). */
export const MAX_EXPORT_PARTITIONS = 2_000;
/** The longest window one job may cover. */
export const MAX_EXPORT_WINDOW_MS = 31 * 86_400_000;
/** How long finished files stay downloadable (the bucket's lifecycle rule deletes them after). */
export const EXPORT_RETENTION_DAYS = 7;
/** Lifetime of a download link. */
export const DOWNLOAD_LINK_TTL_S = 300;

const SYMBOL = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters'));
const EPOCH_MS = v.pipe(
  v.number('must be Unix epoch milliseconds'),
  v.integer('must be an integer'),
  v.minValue(0, 'must not be negative'),
  v.maxValue(LATEST_EPOCH_MS, `must be at most ${LATEST_EPOCH_MS} (2100-01-01)`),
);

export const CreateExportBody = v.strictObject({
  schema: v.pipe(
    v.string('must be a string'),
    v.check((s) => !(NOT_EXPORTABLE as readonly string[]).includes(s), `has no standalone export schema; exportable schemas: ${EXPORT_SCHEMAS.join(', ')}`),
    v.picklist(EXPORT_SCHEMAS, `must be one of: ${EXPORT_SCHEMAS.join(', ')}`),
  ),
  family: v.picklist(FAMILIES, `must be one of: ${FAMILIES.join(', ')}`),
  /** Absent: every symbol of the family with rows in the window. */
  symbols: v.optional(
    v.pipe(
      v.array(SYMBOL, 'must be a list of symbols'),
      v.minLength(1, 'must not be empty (leave it out for every symbol)'),
      v.maxLength(500, 'must hold at most 500 symbols'),
    ),
  ),
  start: EPOCH_MS,
  end: EPOCH_MS,
  /** Only quote: nothing is started or stored. */
  dry_run: v.optional(v.boolean('must be true or false'), false),
});
export type CreateExportBody = v.InferOutput<typeof CreateExportBody>;

export const EXPORT_STATES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

export const ExportQuoteSchema = v.object({
  schema: v.picklist(EXPORT_SCHEMAS),
  schema_version: v.string(),
  family: v.picklist(FAMILIES),
  symbols: v.array(v.string()),
  start: v.string(),
  end: v.string(),
  partitions: v.number(),
  estimated_rows: v.number(),
  estimated_bytes: v.number(),
  /** USD: per GB (10^9 bytes) of estimated Parquet, at least the schema's minimum. */
  price_usd: v.number(),
  currency: v.literal('USD'),
  pricing: v.object({ usd_per_gb: v.number(), minimum_usd: v.number() }),
});
export type ExportQuote = v.InferOutput<typeof ExportQuoteSchema>;

export const ExportFileSchema = v.object({
  name: v.string(),
  symbol: v.string(),
  day: v.string(),
  rows: v.number(),
  bytes: v.number(),
  sha256: v.string(),
  /** REST path that answers a short-lived download link. */
  api_url: v.string(),
});
export type ExportFile = v.InferOutput<typeof ExportFileSchema>;

export const ExportJobSchema = v.object({
  id: v.string(),
  state: v.picklist(EXPORT_STATES),
  schema: v.picklist(EXPORT_SCHEMAS),
  schema_version: v.string(),
  family: v.picklist(FAMILIES),
  symbols: v.array(v.string()),
  start: v.string(),
  end: v.string(),
  created_at: v.string(),
  started_at: v.optional(v.string()),
  finished_at: v.optional(v.string()),
  /** When the files stop being downloadable (completed jobs). */
  expires_at: v.optional(v.string()),
  progress: v.object({ partitions_done: v.number(), partitions_total: v.number(), rows_written: v.number(), bytes_written: v.number() }),
  quote: ExportQuoteSchema,
  /** The price of what was written (completed jobs). */
  price_usd: v.optional(v.number()),
  error_message: v.optional(v.string()),
  /** Present once the job has completed, never before: a file listed here is whole. */
  files: v.optional(v.array(ExportFileSchema)),
  api_url: v.string(),
});
export type ExportJob = v.InferOutput<typeof ExportJobSchema>;

export const ExportDownloadSchema = v.object({ name: v.string(), url: v.string(), expires_at: v.string(), bytes: v.number(), sha256: v.string() });

export const EXPORT_ID_PATTERN = /^exp_[0-9a-z]{8,40}$/;
export const exportIdPath = { id: stringParam({ description: 'Export job id (exp_…)', maxLength: 44, pattern: EXPORT_ID_PATTERN, required: true }) };
export const exportFilePath = {
  ...exportIdPath,
  name: stringParam({ description: "File name from the job's files", maxLength: 160, pattern: /^part-\d{5}-[0-9A-Za-z._-]+\.parquet$/, required: true }),
};
export const CreateExportHeaders = {
  'idempotency-key': stringParam({
    description:
      'Any string of 1 to 255 printable characters: a retry with the same key and body within 24 hours returns the same job (idempotent-replayed: true)',
    maxLength: 255,
    pattern: /^[\x21-\x7e]+$/,
  }),
};
export const ListExportsQuery = {
  limit: integerParam({ min: 1, max: 100, default: 20, description: 'Jobs to return, newest first' }),
  cursor: stringParam({ description: 'meta.next_cursor of the previous page, passed unchanged', maxLength: 128 }),
};
export const DownloadQuery = {
  redirect: booleanParam('true: answer 307 with the link in Location instead of JSON'),
};

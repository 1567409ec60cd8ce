/**
 * The venue archive's daily asset contexts (`asset_ctxs/[date].csv.lz4`): a CSV with a header,
 * one row per perp and sample (about one a minute), columns
 * `time,coin,funding,open_interest,prev_day_px,day_ntl_vlm,premium,oracle_px,mark_px,mid_px,impact_bid_px,impact_ask_px`.
 * Columns are found by their header name (`open_interest` or `openInterest`), so their order may
 * change and new ones are ignored;
 * `premium`, `mid_px` and the impact prices may be empty (or `null`) cells, and `mid_px` is 0 for a
 * market without a book, which we store as unknown. Values are written as the writer's doubles,
 * sometimes in exponent form (`1.25e-05`): they are rewritten as plain decimals, digit for digit.
 *
 * A row becomes a funding sample (rate and premium) and an open-interest sample (with mark,
 * oracle, mid and the day's notional volume), both at the row's time; the prices routes read mark,
 * oracle and mid from the latter. `prev_day_px` and the impact prices have no column in the
 * archive's rows and are not kept.
 */
import type { FundingRecord, NormalizedRecord, OpenInterestRecord } from '#schemas/datasets.ts';
import { familyOfCoin } from './node-fills.ts';

const MAX_PROBLEMS = 5;
const REQUIRED = ['time', 'coin'] as const;
const EMPTY = new Set(['', 'null', 'NULL', 'None', 'NaN', 'nan']);
const PLAIN = /^-?\d+(\.\d+)?$/;

const bareName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** One CSV line's cells; a cell may be double-quoted (`""` inside for a quote). */
export function csvCells(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}

/**
 * A number cell as a plain decimal string: as written when it is one, else rewritten (`1.25e-05`
 * -> `0.0000125`, exactly: the digits are moved, never rounded through a double); undefined for an
 * empty cell, null when it is no number.
 */
export function plainDecimal(cell: string): string | undefined | null {
  // Most cells are plain decimals already: kept as written.
  if (PLAIN.test(cell)) return cell;
  const text = cell.trim();
  if (EMPTY.has(text)) return undefined;
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,3}))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return null;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const intPart = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const fracPart = padded.slice(at).replace(/0+$/, '');
  const body = fracPart ? `${intPart}.${fracPart}` : intPart;
  return sign && /[1-9]/.test(body) ? `-${body}` : body;
}

/** `2025-01-01T00:00:00Z` (also with a fraction, an offset of zero, a space, or no zone: UTC) in epoch ms. */
export function epochMsOfIso(text: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]00:?00)?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Date.parse(`${match[1]}T${match[2]}Z`);
  return Number.isNaN(ms) ? undefined : ms + Number((match[3] ?? '').padEnd(3, '0').slice(0, 3));
}

/** The number cells of a row by column name (absent when empty), or which one is no number. */
function numbersOf(cells: readonly string[], columns: readonly (readonly [string, number])[]): Record<string, string | undefined> | { problem: string } {
  const values: Record<string, string | undefined> = {};
  for (const [name, index] of columns) {
    if (index < 0) continue;
    const value = plainDecimal(cells[index]!);
    if (value === null) return { problem: `${name} must be a number (got ${JSON.stringify(cells[index])})` };
    values[name] = value;
  }
  return values;
}

/** The funding and open-interest records of an `asset_ctxs` CSV, or the problems (by line and column) that refuse it. */
export function assetCtxsToRecords(text: string): { records: NormalizedRecord[] } | { problems: string[] } {
  const lines = text.split('\n');
  const header = csvCells((lines[0] ?? '').replace(/^\uFEFF/, '').trim()).map((h) => h.trim());
  // Names compared without case and underscores, so the info endpoint's spelling (`openInterest`, `markPx`) reads too.
  const names = header.map(bareName);
  const column = (name: string) => names.indexOf(bareName(name));
  if (REQUIRED.some((name) => column(name) < 0) || (column('funding') < 0 && column('open_interest') < 0)) {
    return { problems: [`line 1: a header with time, coin and funding or open_interest (found ${header.join(',').slice(0, 120) || 'nothing'})`] };
  }
  const [time, coin] = [column('time'), column('coin')];
  const numbers = ['funding', 'premium', 'open_interest', 'mark_px', 'oracle_px', 'mid_px', 'day_ntl_vlm'].map((name) => [name, column(name)] as const);
  const problems: string[] = [];
  const records: NormalizedRecord[] = [];
  // A day's file is ~200 markets a minute: each time and coin is read once (a day is ~290,000 rows).
  const times = new Map<string, number | undefined>();
  const markets = new Map<string, ReturnType<typeof familyOfCoin>>();
  for (let i = 1; i < lines.length && problems.length < MAX_PROBLEMS; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const cells = csvCells(line);
    if (cells.length !== header.length) {
      problems.push(`line ${i + 1}: ${cells.length} cells where the header has ${header.length}`);
      continue;
    }
    const timeCell = cells[time]!;
    if (!times.has(timeCell)) times.set(timeCell, epochMsOfIso(timeCell));
    const ts = times.get(timeCell);
    if (ts === undefined) {
      problems.push(`line ${i + 1}: time must be an ISO time (got ${JSON.stringify(cells[time])})`);
      continue;
    }
    const coinCell = cells[coin]!.trim();
    if (!markets.has(coinCell)) markets.set(coinCell, familyOfCoin(coinCell));
    const market = markets.get(coinCell)!;
    if ('error' in market) {
      problems.push(`line ${i + 1}: coin: ${market.error}`);
      continue;
    }
    const values = numbersOf(cells, numbers);
    if ('problem' in values) {
      problems.push(`line ${i + 1}: ${values.problem}`);
      continue;
    }
    const at = { ...market, ts };
    if (values.funding !== undefined) {
      const funding: FundingRecord = {
        dataset: 'funding',
        ...at,
        funding_rate: values.funding,
        ...(values.premium !== undefined && { premium: values.premium }),
      };
      records.push(funding);
    }
    if (values.open_interest !== undefined) {
      const oi: OpenInterestRecord = {
        dataset: 'open_interest',
        ...at,
        open_interest: values.open_interest,
        ...(values.mark_px !== undefined && { mark_price: values.mark_px }),
        ...(values.oracle_px !== undefined && { oracle_price: values.oracle_px }),
        // 0 is the archive's mark for a market without a book: no mid.
        ...(values.mid_px !== undefined && values.mid_px !== '0' && { mid_price: values.mid_px }),
        ...(values.day_ntl_vlm !== undefined && { day_ntl_volume: values.day_ntl_vlm }),
      };
      records.push(oi);
    }
  }
  return problems.length > 0 ? { problems } : { records };
}

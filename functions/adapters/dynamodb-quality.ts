/**
 * Quality table layout:
 *
 *   I#<incident id>        / I                        one incident (gsi1: INCIDENTS / <started_at ms, 15 digits>#<id>)
 *   LAT#<UTC hour ms>      / <minute ms>#<container>#<scope>   one container's REST latency histogram of one minute and family
 *
 * Incidents are listed newest first from one index partition; latency minutes are read by the hour
 * (one query per hour of the window).
 */
import * as v from 'valibot';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IncidentStore, LatencyMinute, LatencyStore, StoredIncident } from '../ports/quality.ts';
import { INCIDENT_KINDS } from '#schemas/quality.ts';
import { FAMILIES } from '#schemas/venues.ts';
import { parseItem } from './stored-item.ts';

const HOUR = 3_600_000;
const padded = (ms: number) => String(ms).padStart(15, '0');
/** Latency minutes are kept 35 days: the SLA reads the month, the latency route a day. */
const LATENCY_TTL_S = 35 * 86_400;

function toItem(incident: StoredIncident) {
  return {
    pk: `I#${incident.id}`,
    sk: 'I',
    gsi1pk: 'INCIDENTS',
    gsi1sk: `${padded(incident.startedAt)}#${incident.id}`,
    id: incident.id,
    kind: incident.kind,
    exchange: incident.exchange,
    data_types: incident.dataTypes,
    symbols: incident.symbols,
    started_at: incident.startedAt,
    detected_at: incident.detectedAt,
    resolved_at: incident.resolvedAt,
  };
}

const IncidentItem = v.object({
  id: v.string(),
  kind: v.picklist(INCIDENT_KINDS),
  exchange: v.picklist(FAMILIES),
  data_types: v.optional(v.array(v.string()), []),
  symbols: v.optional(v.array(v.string()), []),
  started_at: v.number(),
  detected_at: v.number(),
  resolved_at: v.optional(v.number()),
});

function fromItem(tableName: string, stored: Record<string, unknown>): StoredIncident {
  const item = parseItem(IncidentItem, tableName, stored);
  return {
    id: item.id,
    kind: item.kind,
    exchange: item.exchange,
    dataTypes: item.data_types,
    symbols: item.symbols,
    startedAt: item.started_at,
    detectedAt: item.detected_at,
    ...(item.resolved_at !== undefined && { resolvedAt: item.resolved_at }),
  };
}

export function dynamoIncidentStore(client: DynamoDBDocumentClient, tableName: string): IncidentStore {
  return {
    async open(incident) {
      try {
        await client.send(new PutCommand({ TableName: tableName, Item: toItem(incident), ConditionExpression: 'attribute_not_exists(pk)' }));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    },
    async resolve(incident) {
      const item = toItem(incident);
      // One update whether or not the opening was stored: the fields it would have written, if absent, and the resolution.
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: item.pk, sk: item.sk },
          // Every attribute by placeholder: several of these names are DynamoDB reserved words.
          UpdateExpression: `SET #gpk = :gpk, #gsk = :gsk, #id = :id, #kind = if_not_exists(#kind, :kind), #ex = :ex, #dt = if_not_exists(#dt, :dt),
          #sy = if_not_exists(#sy, :sy), #st = if_not_exists(#st, :st), #de = if_not_exists(#de, :de), #re = :re`,
          ExpressionAttributeNames: {
            '#gpk': 'gsi1pk',
            '#gsk': 'gsi1sk',
            '#id': 'id',
            '#kind': 'kind',
            '#ex': 'exchange',
            '#dt': 'data_types',
            '#sy': 'symbols',
            '#st': 'started_at',
            '#de': 'detected_at',
            '#re': 'resolved_at',
          },
          ExpressionAttributeValues: {
            ':gpk': item.gsi1pk,
            ':gsk': item.gsi1sk,
            ':id': item.id,
            ':kind': item.kind,
            ':ex': item.exchange,
            ':dt': item.data_types,
            ':sy': item.symbols,
            ':st': item.started_at,
            ':de': item.detected_at,
            ':re': incident.resolvedAt,
          },
        }),
      );
    },
    async get(id) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { pk: `I#${id}`, sk: 'I' } }));
      return Item ? fromItem(tableName, Item) : undefined;
    },
    async list(since) {
      const incidents: StoredIncident[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk >= :since',
            ExpressionAttributeValues: { ':pk': 'INCIDENTS', ':since': padded(Math.max(0, since)) },
            ScanIndexForward: false,
            ExclusiveStartKey,
          }),
        );
        incidents.push(...(page.Items ?? []).map((item) => fromItem(tableName, item)));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return incidents;
    },
  };
}

export function dynamoLatencyStore(client: DynamoDBDocumentClient, tableName: string): LatencyStore {
  return {
    async put(container, minute) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: `LAT#${Math.floor(minute.minute / HOUR) * HOUR}`,
            sk: `${padded(minute.minute)}#${container}#${minute.scope}`,
            minute: minute.minute,
            scope: minute.scope,
            count: minute.count,
            sum_ms: minute.sumMs,
            hist: JSON.stringify(minute.hist),
            expires_at: Math.floor(minute.minute / 1000) + LATENCY_TTL_S,
          },
        }),
      );
    },
    async range(from, to) {
      const hours: number[] = [];
      for (let hour = Math.floor(from / HOUR) * HOUR; hour < to; hour += HOUR) hours.push(hour);
      const pages = await Promise.all(
        hours.map(async (hour) => {
          const minutes: LatencyMinute[] = [];
          let ExclusiveStartKey: Record<string, unknown> | undefined;
          do {
            const page = await client.send(
              new QueryCommand({
                TableName: tableName,
                KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
                ExpressionAttributeValues: {
                  ':pk': `LAT#${hour}`,
                  ':from': padded(Math.max(from, hour)),
                  ':to': `${padded(Math.min(to, hour + HOUR) - 1)}#\uffff`,
                },
                ExclusiveStartKey,
              }),
            );
            // Read, not parsed: the SLA reads a month of every container's minutes (hundreds of
            // thousands of items), and the minutes are written by this adapter alone from numbers the
            // HTTP shell measured; a parse per item would cost more than the month's arithmetic.
            for (const item of page.Items ?? []) {
              minutes.push({
                minute: Number(item.minute),
                scope: String(item.scope),
                count: Number(item.count),
                sumMs: Number(item.sum_ms),
                hist: JSON.parse(String(item.hist)) as Record<string, number>,
              });
            }
            ExclusiveStartKey = page.LastEvaluatedKey;
          } while (ExclusiveStartKey);
          return minutes;
        }),
      );
      return pages.flat();
    },
  };
}

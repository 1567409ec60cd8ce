/**
 * Operators' view: one CloudWatch dashboard and the alarms that page, all to one SNS topic
 * (`AlarmTopicArn` output; subscribe an email or a chat integration to it). Custom metrics are the
 * handlers' Powertools metrics (namespace and `service` dimension as service-function.ts sets
 * them); the rest are API Gateway's and SQS's own.
 */
import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  SingleValueWidget,
  TextWidget,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import type { QueueName } from '#functions/resources.ts';
import { entriesOf } from '../typed-records.ts';

/** Must match service-function.ts (POWERTOOLS_SERVICE_NAME, POWERTOOLS_METRICS_NAMESPACE). */
const NAMESPACE = 'MarketArchive';
const SERVICE = 'market-archive';
const FIVE_MINUTES = Duration.minutes(5);

/** The alarm thresholds, in one place (README: Operating). */
export const ALARM_THRESHOLDS = {
  /** Share of API requests answered 5xx, percent, over 5 minutes, 3 periods running. */
  api5xxPercent: 1,
  /** API Gateway p99 latency, ms, over 5 minutes, 3 periods running (the handlers' budget is 29 s). */
  apiP99LatencyMs: 3_000,
  /** Newest record of a batch to readable, ms (worst batch of 5 minutes), 3 periods running; no batch for 15 minutes also alarms. */
  ingestLagMs: 120_000,
  /** Share of delivery attempts that failed and were scheduled again, percent, over 15 minutes. */
  deliveryRetryPercent: 50,
} as const;

export interface MonitoringProps {
  readonly api: RestApi;
  readonly deadLetterQueues: Readonly<Record<QueueName, IQueue>>;
}

const custom = (metricName: string, statistic: string, label: string) =>
  new Metric({ namespace: NAMESPACE, metricName, dimensionsMap: { service: SERVICE }, statistic, period: FIVE_MINUTES, label });

export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = new Topic(this, 'alarms', { displayName: 'Market-data archive alarms', enforceSSL: true });
    const alarm = (name: string, metric: IMetric, threshold: number, description: string, options: { periods?: number; missing?: TreatMissingData } = {}) => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        alarmDescription: description,
        evaluationPeriods: options.periods ?? 1,
        datapointsToAlarm: options.periods ?? 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: options.missing ?? TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };

    const { api } = props;
    const requests = api.metricCount({ period: FIVE_MINUTES, statistic: 'Sum', label: 'requests' });
    const serverErrors = api.metricServerError({ period: FIVE_MINUTES, statistic: 'Sum', label: '5xx' });
    const clientErrors = api.metricClientError({ period: FIVE_MINUTES, statistic: 'Sum', label: '4xx' });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: FIVE_MINUTES,
      label: '5xx %',
    });
    const p50 = api.metricLatency({ period: FIVE_MINUTES, statistic: 'p50', label: 'p50' });
    const p99 = api.metricLatency({ period: FIVE_MINUTES, statistic: 'p99', label: 'p99' });
    const ingested = custom('RecordsIngested', 'Sum', 'records ingested');
    const ingestLag = custom('IngestLag', 'Maximum', 'ingest lag (max)');
    const rejected = custom('BatchesRejected', 'Sum', 'batches rejected');
    const delivered = custom('DeliveriesDelivered', 'Sum', 'delivered');
    const retried = custom('DeliveryRetriesScheduled', 'Sum', 'failed, retry scheduled');
    const exhausted = custom('DeliveriesExhausted', 'Sum', 'exhausted');
    const deliveryP99 = custom('DeliveryLatency', 'p99', 'receiver latency p99');
    const disabled = custom('EndpointsAutoDisabled', 'Sum', 'endpoints auto-disabled');
    const debitFailed = custom('CreditDebitFailed', 'Sum', 'credit debits failed');
    const requeued = custom('OverdueDeliveriesRequeued', 'Sum', 'overdue deliveries requeued');
    const retryRate = new MathExpression({
      expression: 'IF(retried + delivered > 0, 100 * retried / (retried + delivered), 0)',
      usingMetrics: { retried: custom('DeliveryRetriesScheduled', 'Sum', 'retried'), delivered: custom('DeliveriesDelivered', 'Sum', 'delivered') },
      period: Duration.minutes(15),
      label: 'retry %',
    });
    const dlqDepths = entriesOf(props.deadLetterQueues).map(
      ([name, dlq]) => [name, dlq.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: `${name} DLQ` })] as const,
    );

    const t = ALARM_THRESHOLDS;
    alarm('api-5xx-rate', errorRate, t.api5xxPercent, `More than ${t.api5xxPercent}% of API requests answered 5xx for 15 minutes`, { periods: 3 });
    alarm('api-p99-latency', p99, t.apiP99LatencyMs, `API p99 latency above ${t.apiP99LatencyMs} ms for 15 minutes`, { periods: 3 });
    alarm('ingest-lag', ingestLag, t.ingestLagMs, `Ingest lag above ${t.ingestLagMs / 1000} s for 15 minutes, or no batch ingested for 15 minutes`, {
      periods: 3,
      missing: TreatMissingData.BREACHING,
    });
    alarm('batches-rejected', rejected, 0, 'A raw batch was refused whole (its reason is in the manifest and the ingest log)');
    alarm('deliveries-failing', retryRate, t.deliveryRetryPercent, `More than ${t.deliveryRetryPercent}% of delivery attempts failed over 15 minutes`);
    alarm('deliveries-exhausted', exhausted, 0, 'A delivery used its whole retry ladder (24 h) without a 2xx');
    alarm('endpoints-auto-disabled', disabled, 0, 'An endpoint was disabled after its failure streak');
    alarm('credit-debits-failed', debitFailed, 0, 'Credits could not be debited for an answered request (served, not billed)');
    for (const [name, depth] of dlqDepths) alarm(`dlq-${name}`, depth, 0, `Messages parked in the ${name} dead-letter queue (each carries its reason)`);

    this.dashboard = new Dashboard(this, 'dashboard', {
      dashboardName: 'market-archive',
      widgets: [
        [
          new TextWidget({
            markdown: '# Market-data archive\nAPI, ingest, webhook delivery and billing; alarms go to the `AlarmTopicArn` topic.',
            width: 24,
            height: 2,
          }),
        ],
        [
          new GraphWidget({ title: 'API requests and errors', left: [requests, clientErrors, serverErrors], width: 8 }),
          new GraphWidget({ title: 'API 5xx %', left: [errorRate], leftAnnotations: [{ value: t.api5xxPercent, label: 'alarm' }], width: 8 }),
          new GraphWidget({ title: 'API latency (ms)', left: [p50, p99], leftAnnotations: [{ value: t.apiP99LatencyMs, label: 'p99 alarm' }], width: 8 }),
        ],
        [
          new GraphWidget({ title: 'Ingest', left: [ingested], right: [rejected], width: 12 }),
          new GraphWidget({ title: 'Ingest lag (ms)', left: [ingestLag], leftAnnotations: [{ value: t.ingestLagMs, label: 'alarm' }], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Deliveries', left: [delivered, retried, exhausted, requeued], width: 8 }),
          new GraphWidget({ title: 'Delivery retry % and receiver p99 (ms)', left: [retryRate], right: [deliveryP99], width: 8 }),
          new SingleValueWidget({ title: 'Endpoints disabled, credit debits failed', metrics: [disabled, debitFailed], width: 8 }),
        ],
        [new GraphWidget({ title: 'Dead-letter queues (messages)', left: dlqDepths.map(([, depth]) => depth), width: 24 })],
      ],
    });
  }
}

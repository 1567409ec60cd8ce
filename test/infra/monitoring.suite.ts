/** The operators' dashboard and alarms: each condition the README lists pages the alarm topic. */
import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { QUEUES } from '#functions/resources.ts';
import { ALARM_THRESHOLDS } from '#lib/constructs/monitoring.ts';
import { logicalId, synthesize } from './synth.ts';

const { service, serviceTemplate: template } = synthesize();
const topicId = logicalId(service.monitoring.topic.node.defaultChild as never);
const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as { Properties: Record<string, any> }[];
const described = (text: string) => alarms.find((a) => String(a.Properties.AlarmDescription).includes(text))!.Properties;
/** The alarm's metric, whichever form CloudFormation got (a labelled metric is a one-metric query). */
function metricOf(props: Record<string, any>): { MetricName: string; Namespace: string; Stat: string; Dimensions: unknown } {
  const stat = props.Metrics?.find((m: any) => m.MetricStat)?.MetricStat;
  return stat
    ? { ...stat.Metric, Stat: stat.Stat }
    : { MetricName: props.MetricName, Namespace: props.Namespace, Stat: props.ExtendedStatistic ?? props.Statistic, Dimensions: props.Dimensions };
}

describe('monitoring', () => {
  it('sends every alarm to the one topic, which refuses publishers without TLS and is an output', () => {
    expect(alarms.length).toBeGreaterThanOrEqual(8 + Object.keys(QUEUES).length);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    template.hasResourceProperties(
      'AWS::SNS::TopicPolicy',
      Match.objectLike({
        PolicyDocument: Match.objectLike({
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        }),
      }),
    );
    expect(template.findOutputs('AlarmTopicArn')).not.toEqual({});
  });

  it('alarms on the 5xx rate, p99 latency, ingest lag, failing and exhausted deliveries, disabled endpoints and credit debits', () => {
    expect(described('API requests answered 5xx')).toMatchObject({ Threshold: ALARM_THRESHOLDS.api5xxPercent, EvaluationPeriods: 3 });
    expect(JSON.stringify(described('API requests answered 5xx').Metrics)).toContain('5XXError');
    expect(described('API p99 latency')).toMatchObject({ Threshold: ALARM_THRESHOLDS.apiP99LatencyMs, EvaluationPeriods: 3 });
    expect(metricOf(described('API p99 latency'))).toMatchObject({ MetricName: 'Latency', Namespace: 'AWS/ApiGateway', Stat: 'p99' });
    expect(described('Ingest lag')).toMatchObject({ Threshold: ALARM_THRESHOLDS.ingestLagMs, TreatMissingData: 'breaching' });
    expect(metricOf(described('Ingest lag'))).toMatchObject({ MetricName: 'IngestLag', Namespace: 'MarketArchive', Stat: 'Maximum' });
    expect(described('delivery attempts failed').Threshold).toBe(ALARM_THRESHOLDS.deliveryRetryPercent);
    for (const [text, metric] of [
      ['whole retry ladder', 'DeliveriesExhausted'],
      ['failure streak', 'EndpointsAutoDisabled'],
      ['Credits could not be debited', 'CreditDebitFailed'],
    ]) {
      expect(described(text!).Threshold, text).toBe(0);
      expect(metricOf(described(text!)), text).toMatchObject({
        MetricName: metric,
        Namespace: 'MarketArchive',
        Dimensions: [{ Name: 'service', Value: 'market-archive' }],
      });
    }
  });

  it('alarms on a message in any dead-letter queue', () => {
    for (const name of Object.keys(QUEUES)) {
      expect(described(`${name} dead-letter queue`).Threshold, name).toBe(0);
      expect(metricOf(described(`${name} dead-letter queue`)), name).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Namespace: 'AWS/SQS' });
    }
  });

  it('draws one dashboard with the API, ingest, delivery and dead-letter panels', () => {
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard')) as { Properties: { DashboardBody: unknown } }[];
    const body = JSON.stringify(dashboard!.Properties.DashboardBody);
    for (const title of ['API requests and errors', 'API latency (ms)', 'Ingest lag (ms)', 'Deliveries', 'Dead-letter queues (messages)'])
      expect(body).toContain(title);
  });
});

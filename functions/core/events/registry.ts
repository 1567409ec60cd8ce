/**
 * The event-type registry: one entry per type, in catalogue order, keyed by the type. Adding a type
 * starts with its module in this folder and one line here; everything else is derived: the
 * catalogue (core/webhooks/catalog.ts), the batch and minute runs, estimate and dry-run support,
 * and which types carry relative metrics. An entry whose key is not its declaration's type, or a
 * live type without a detection, fails type-checking.
 */
import type { Detection, EventDefinition, EventTypeDecl, IncidentSource } from './declare.ts';
import exportJobCompleted from './export.job.completed.ts';
import exportJobFailed from './export.job.failed.ts';
import webhookTest from './webhook.test.ts';
import marketLiquidation from './market.liquidation.ts';
import marketLiquidationBurst from './market.liquidation_burst.ts';
import marketFundingFlip from './market.funding_flip.ts';
import marketListed from './market.listed.ts';
import marketDelisted from './market.delisted.ts';
import marketOiDelta from './market.oi_delta.ts';
import marketBreadthCross from './market.breadth_cross.ts';
import marketPgaPayment from './market.pga_payment.ts';
import hip4Settlement from './hip4.settlement.ts';
import oracleStall from './oracle.stall.ts';
import oracleJump from './oracle.jump.ts';
import chainBlockStall from './chain.block_stall.ts';
import chainBlockTimeDegraded from './chain.block_time_degraded.ts';
import chainUpgradeDetected from './chain.upgrade_detected.ts';
import archiveGapDetected from './archive.gap_detected.ts';
import archiveGapResolved from './archive.gap_resolved.ts';
import ingestStall from './ingest.stall.ts';
import ingestRecovered from './ingest.recovered.ts';
import accountFill from './account.fill.ts';
import accountTransfer from './account.transfer.ts';
import accountLiquidated from './account.liquidated.ts';
import accountOrderRejected from './account.order_rejected.ts';
import accountTwapLifecycle from './account.twap_lifecycle.ts';
import accountHip4Settled from './account.hip4_settled.ts';
import billingCreditLow from './billing.credit_low.ts';

/** Keeps the registry's keys and their declarations' types one and the same. */
const registry = <const E extends Record<string, EventDefinition>>(events: E & { [K in keyof E]: EventDefinition<K & string> }): E => events;

const EVENTS = registry({
  'export.job.completed': exportJobCompleted,
  'export.job.failed': exportJobFailed,
  'webhook.test': webhookTest,
  'market.liquidation': marketLiquidation,
  'market.liquidation_burst': marketLiquidationBurst,
  'market.funding_flip': marketFundingFlip,
  'market.listed': marketListed,
  'market.delisted': marketDelisted,
  'market.oi_delta': marketOiDelta,
  'market.breadth_cross': marketBreadthCross,
  'market.pga_payment': marketPgaPayment,
  'hip4.settlement': hip4Settlement,
  'oracle.stall': oracleStall,
  'oracle.jump': oracleJump,
  'chain.block_stall': chainBlockStall,
  'chain.block_time_degraded': chainBlockTimeDegraded,
  'chain.upgrade_detected': chainUpgradeDetected,
  'archive.gap_detected': archiveGapDetected,
  'archive.gap_resolved': archiveGapResolved,
  'ingest.stall': ingestStall,
  'ingest.recovered': ingestRecovered,
  'account.fill': accountFill,
  'account.transfer': accountTransfer,
  'account.liquidated': accountLiquidated,
  'account.order_rejected': accountOrderRejected,
  'account.twap_lifecycle': accountTwapLifecycle,
  'account.hip4_settled': accountHip4Settled,
  'billing.credit_low': billingCreditLow,
});

export type EventType = keyof typeof EVENTS;

const DEFINITIONS: readonly EventDefinition[] = Object.values(EVENTS);

/** Every declaration, in catalogue order. */
export const EVENT_TYPES: readonly EventTypeDecl[] = DEFINITIONS.map((d) => d.declaration);
export const EVENT_DEFINITION_BY_TYPE: ReadonlyMap<string, EventDefinition> = new Map(DEFINITIONS.map((d) => [d.declaration.type, d]));

type DetectedAs<K extends Detection['kind']> = { type: EventType; detection: Extract<Detection<EventType>, { kind: K }>; incident?: IncidentSource };
function detectedAs<K extends Detection['kind']>(kind: K): readonly DetectedAs<K>[] {
  return DEFINITIONS.flatMap((d) =>
    d.detection?.kind === kind
      ? [
          {
            type: d.declaration.type as EventType,
            detection: d.detection as Extract<Detection<EventType>, { kind: K }>,
            ...(d.incident && { incident: d.incident }),
          },
        ]
      : [],
  );
}

/** Types found in each ingested batch, with their detections. */
export const BATCH_DETECTORS = detectedAs('batch');
/** Types found by the minute run, with their detections. */
export const MINUTE_DETECTORS = detectedAs('minute');
/** Types announced by whoever knows of them (account events, the test delivery). */
export const ANNOUNCED_TYPES = detectedAs('announced');
/** Minute types that open or resolve data-quality incidents, run every minute whether or not a rule listens. */
export const INCIDENT_DETECTORS = MINUTE_DETECTORS.filter((d): d is DetectedAs<'minute'> & { incident: IncidentSource } => d.incident !== undefined);

/** The types each preview supports, in alphabetical order (as the 400 for any other type lists them). */
export const DRY_RUN_TYPES: readonly string[] = DEFINITIONS.filter((d) => d.preview?.dryRun)
  .map((d) => d.declaration.type)
  .sort();
export const ESTIMATE_TYPES: readonly string[] = DEFINITIONS.filter((d) => d.preview?.estimate)
  .map((d) => d.declaration.type)
  .sort();

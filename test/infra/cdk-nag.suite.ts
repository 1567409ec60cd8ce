import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import { synthesize } from './synth.ts';

interface PluginReport {
  pluginName: string;
  conclusion: string;
  violations: { ruleName: string; severity: string }[];
  suppressedViolations?: { ruleName: string; reason: string; acknowledgedAt: string }[];
}

/**
 * cdk-nag 3 is a CDK policy-validation plugin: an unacknowledged finding makes synth throw, and
 * the outcome is written to the assembly's validation report (there are no nag annotations). The
 * assembly is the one the other infra suites read (the app caches its synthesis).
 */
const assembly = synthesize().app.synth();

function nagReport(): PluginReport {
  const report = JSON.parse(readFileSync(join(assembly.directory, VALIDATION_REPORT_FILE), 'utf8')) as { pluginReports: PluginReport[] };
  const nag = report.pluginReports.find((p) => p.pluginName === 'AwsSolutions');
  expect(nag).toBeDefined();
  return nag!;
}

describe('CloudFormation validation', () => {
  it('is on, its errors made fatal by cdk.json (a template error fails the synthesis)', () => {
    // Prepare / Act / Assess: the infra suites synthesize with it on; cdk.json makes its errors fatal.
    expect(synthesize().app.node.tryGetContext('@aws-cdk/core:validateAgainstDefaultRules')).toBe(true);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('reports no unacknowledged errors or warnings', () => {
    // Prepare / Act
    const nag = nagReport();

    // Assess
    expect(nag.conclusion).toBe('success');
    expect(nag.violations.map((v) => `${v.severity} ${v.ruleName}`)).toEqual([]);
  });

  it('gives every acknowledged finding a reason', () => {
    // Prepare / Act
    const suppressed = nagReport().suppressedViolations ?? [];

    // Assess
    expect(suppressed.length).toBeGreaterThan(0);
    for (const finding of suppressed) expect(finding.reason.length, finding.ruleName).toBeGreaterThan(20);
  });
});

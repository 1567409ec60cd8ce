/** LOCAL_DEADLINE_SCALE stretches the local cloud's Lambda deadlines; unset, they are the deployed ones. */
import { afterEach, describe, expect, it } from 'vitest';
import { lambdaContext } from '#local/invoke.ts';
import { resetConfig } from '#shared/config.ts';
import { FUNCTIONS } from '#functions/resources.ts';

const saved = { DEPLOYMENT: process.env.DEPLOYMENT, LOCAL_DEADLINE_SCALE: process.env.LOCAL_DEADLINE_SCALE };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetConfig();
});

const remainingS = () => Math.round(lambdaContext('authorizer').getRemainingTimeInMillis() / 1000);

describe('the local Lambda context', () => {
  it('gives each function its deployed timeout, times LOCAL_DEADLINE_SCALE when set', () => {
    process.env.DEPLOYMENT = 'local';
    delete process.env.LOCAL_DEADLINE_SCALE;
    resetConfig();
    expect(remainingS()).toBe(FUNCTIONS.authorizer.timeoutS);
    process.env.LOCAL_DEADLINE_SCALE = '5';
    resetConfig();
    expect(remainingS()).toBe(5 * FUNCTIONS.authorizer.timeoutS);
  });
});

import { describe, expect, it } from 'vitest';
import { parseConfig, requireSetting } from '#shared/config.ts';
import { localSettings } from '#local/settings.ts';

describe('parseConfig', () => {
  it('applies defaults when the environment is empty', () => {
    expect(parseConfig({})).toMatchObject({ AWS_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: false, DEPLOYMENT: 'aws' });
  });

  it('stops with a message naming the variable of a bad value', () => {
    expect(() => parseConfig({ AWS_REGION: 'mars' })).toThrow(/AWS_REGION must be an AWS region/);
    expect(() => parseConfig({ QUEUE_DELIVERY_URL: 'not a url' })).toThrow(/QUEUE_DELIVERY_URL must be a URL/);
    expect(() => parseConfig({ S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE must be true or false/);
  });

  it('accepts the local-cloud-only webhook settings locally and refuses them in the AWS configuration', () => {
    expect(parseConfig({ DEPLOYMENT: 'local', LOCAL_TIME_SCALE: '3600', WEBHOOK_ALLOWED_TARGETS: '127.0.0.1, LocalHost' })).toMatchObject({
      LOCAL_TIME_SCALE: 3600,
      WEBHOOK_ALLOWED_TARGETS: ['127.0.0.1', 'localhost'],
    });
    expect(() => parseConfig({ LOCAL_TIME_SCALE: '60' })).toThrow(/LOCAL_TIME_SCALE is local-cloud only/);
    expect(() => parseConfig({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' })).toThrow(/WEBHOOK_ALLOWED_TARGETS is local-cloud only/);
    expect(() => parseConfig({ DEPLOYMENT: 'local', LOCAL_TIME_SCALE: '0.5' })).toThrow(/LOCAL_TIME_SCALE must be at least 1/);
    expect(parseConfig({ DEPLOYMENT: 'local', WEBHOOK_ATTEMPT_TIMEOUT_S: '600' })).toMatchObject({ WEBHOOK_ATTEMPT_TIMEOUT_S: 600 });
    expect(parseConfig({ DEPLOYMENT: 'local' }).WEBHOOK_ATTEMPT_TIMEOUT_S).toBeUndefined();
    expect(() => parseConfig({ WEBHOOK_ATTEMPT_TIMEOUT_S: '600' })).toThrow(/WEBHOOK_ATTEMPT_TIMEOUT_S is local-cloud only/);
    expect(() => parseConfig({ DEPLOYMENT: 'local', WEBHOOK_ATTEMPT_TIMEOUT_S: '2.5' })).toThrow(/WEBHOOK_ATTEMPT_TIMEOUT_S must be a whole number of seconds/);
    expect(parseConfig({ DEPLOYMENT: 'local', LOCAL_DEADLINE_SCALE: '4' })).toMatchObject({ LOCAL_DEADLINE_SCALE: 4 });
    expect(() => parseConfig({ LOCAL_DEADLINE_SCALE: '4' })).toThrow(/LOCAL_DEADLINE_SCALE is local-cloud only/);
    expect(() => parseConfig({ DEPLOYMENT: 'local', LOCAL_DEADLINE_SCALE: '0.5' })).toThrow(/LOCAL_DEADLINE_SCALE must be at least 1/);
  });

  it('names a resource variable the calling port needs but the function was not given', () => {
    expect(() => requireSetting(parseConfig({}), 'TABLE_ACCOUNTS')).toThrow(/TABLE_ACCOUNTS is not set/);
  });
});

describe('localSettings', () => {
  it('defaults to the three local keys on port 3000', () => {
    const settings = localSettings({});
    expect(settings.PORT).toBe(3000);
    expect(settings.LOCAL_API_KEYS).toEqual([
      { key: 'local-build-key', plan: 'build' },
      { key: 'local-pro-key', plan: 'pro' },
      { key: 'local-free-key', plan: 'free' },
    ]);
  });

  it('replaces the keys with LOCAL_API_KEYS', () => {
    expect(localSettings({ LOCAL_API_KEYS: 'abcdefgh=scale' }).LOCAL_API_KEYS).toEqual([{ key: 'abcdefgh', plan: 'scale' }]);
  });

  it('names LOCAL_API_KEYS when a plan is unknown', () => {
    expect(() => localSettings({ LOCAL_API_KEYS: 'abcdefgh=gold' })).toThrow(/LOCAL_API_KEYS each plan must be one of/);
  });

  it('names PORT when it is not a port', () => {
    expect(() => localSettings({ PORT: 'http' })).toThrow(/PORT must be a TCP port number/);
  });
});

import * as v from 'valibot';
import { LocalConfigSchema, type LocalConfig } from '#schemas/local-config.ts';
import { ConfigError } from '../shared/config.ts';

export function localSettings(env: Record<string, string | undefined> = process.env): LocalConfig {
  const result = v.safeParse(LocalConfigSchema, env);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? '(environment)'} ${i.message}`);
    throw new ConfigError(`Invalid local cloud settings: ${problems.join('; ')}`);
  }
  return result.output;
}

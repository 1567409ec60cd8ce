/**
 * The only module that reads `process.env`. The configuration is parsed once per container; a bad
 * value throws at start-up with a message naming the variable.
 */
import * as v from 'valibot';
import { ConfigSchema, type Config } from '#schemas/config.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const result = v.safeParse(ConfigSchema, env);
  if (!result.success) {
    const problems = result.issues.map((issue) => {
      const variable = v.getDotPath(issue) ?? '(environment)';
      return `${variable} ${issue.message}${issue.input === undefined ? '' : ` (got ${JSON.stringify(issue.input)})`}`;
    });
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return result.output as Config;
}

let cached: Config | undefined;

/** The process configuration, parsed on first use and then reused. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** Forget the cached configuration (the local cloud and tests set the environment before use). */
export function resetConfig(): void {
  cached = undefined;
}

/** A resource setting the calling port cannot work without. */
export function requireSetting(cfg: Config, variable: string): string {
  const value = cfg[variable];
  if (typeof value !== 'string' || value === '') {
    throw new ConfigError(`Missing configuration: ${variable} is not set for this function`);
  }
  return value;
}

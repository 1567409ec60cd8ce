/**
 * The project's licence (Apache-2.0: LICENSE, package.json, the lockfile, the typed client) and
 * its dependencies' licences. Every package of package-lock.json (what `npm ci` installs, on any
 * platform) must be under a permissive licence, so a copyleft or unlicensed dependency cannot
 * slip in unnoticed; NOTICE must carry the NOTICE text of every production dependency that ships
 * one (Apache-2.0 section 4(d)), except a package no function bundle contains.
 *
 * A package's licence is the lockfile's `license` field, else its installed package.json's
 * (`license`, or the legacy `licenses` array). A lockfile entry with neither (not installed on this
 * machine, so no package.json to read, and no licence recorded) is refused like a missing licence:
 * `npm ci` on another platform would install a package nobody has looked at.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredLicence, packageNameOf, parseSpdx, spdxAllowed, type LicenceFields } from '../helpers/licences.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Permissive licences: a dependency under any of them may be bundled into what we distribute. */
const PERMISSIVE = new Set([
  'MIT',
  'MIT-0',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'BlueOak-1.0.0',
  'CC0-1.0',
  'Unlicense',
  // Python's licence (argparse, a port of Python's module, keeps it).
  'Python-2.0',
  'PSF-2.0',
  // For data only (browser tables and the like), never code.
  'CC-BY-3.0',
  'CC-BY-4.0',
]);
/**
 * Development dependencies (build, test and deploy tools) may also be under MPL-2.0 (lightningcss,
 * under vitest): its copyleft is per file and binds only who distributes those files, which no
 * function bundle contains. A production dependency under MPL-2.0 alone needs a review first.
 */
const DEV_PERMISSIVE = new Set([...PERMISSIVE, 'MPL-2.0']);

/**
 * Packages whose declared licence is missing or not an SPDX id, with the licence their own files
 * give, read by hand. Keyed by version: a new version is read again.
 */
const EXCEPTIONS: Readonly<Record<string, { licence: string; reason: string }>> = {
  'decko@1.2.0': { licence: 'MIT', reason: "redoc's; no licence field, its LICENSE file is the MIT licence (Jason Miller, 2017)" },
  'stickyfill@1.1.1': { licence: 'MIT', reason: "redoc's; no licence field, its LICENSE file is the MIT licence (Oleg Korsunsky, Automattic, 2014)" },
  'url-template@2.0.8': {
    licence: 'BSD-3-Clause',
    reason: 'redoc\'s; declares "BSD", its LICENSE file is the three-clause BSD licence (Bram Stein, 2012-2014)',
  },
  'humanize-number@0.0.2': { licence: 'MIT', reason: "dev (s3rver via koa-logger); no licence field nor file, its README's License section says MIT" },
  'only@0.0.2': { licence: 'MIT', reason: 'dev (s3rver via koa); no licence field nor file, its README carries the MIT licence (TJ Holowaychuk, 2012)' },
};

/**
 * Production dependencies with a NOTICE file that no function bundle contains, so NOTICE need not
 * carry their text.
 */
const NOT_BUNDLED: readonly { name: RegExp; reason: string }[] = [
  {
    name: /^(typescript|@typescript\/typescript-[a-z0-9-]+)$/,
    reason: "the TypeScript compiler and its native binary: outside devDependencies only as valibot's optional peer, which valibot's types alone use",
  },
];

/** sha256 of https://www.apache.org/licenses/LICENSE-2.0.txt, byte for byte (with its appendix). */
const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

interface LockEntry extends LicenceFields {
  name?: string;
  version?: string;
  dev?: boolean;
  link?: boolean;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;
const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
/** Every package `npm ci` may install: the lockfile's node_modules entries (links point elsewhere). */
const installable = Object.entries(lock.packages).filter(([path, entry]) => path.includes('node_modules/') && !entry.link);
const isInstalled = (path: string) => existsSync(join(ROOT, path, 'package.json'));
const keyOf = (path: string, entry: LockEntry) => `${entry.name ?? packageNameOf(path)}@${entry.version}`;

/** The licence a lockfile entry declares: the lockfile's own field, else the installed package.json's. */
function licenceOf(path: string, entry: LockEntry): string | undefined {
  return declaredLicence(entry) ?? (isInstalled(path) ? declaredLicence(readJson<LicenceFields>(join(path, 'package.json'))) : undefined);
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('licence', () => {
  it("is Apache-2.0: the verbatim licence text, package.json, the lockfile's root and the typed client", () => {
    // Act
    const licence = readFileSync(join(ROOT, 'LICENSE'));
    // Assess
    expect(createHash('sha256').update(licence).digest('hex')).toBe(APACHE_2_0_SHA256);
    expect(readFileSync(join(ROOT, 'clients/typescript/LICENSE'))).toEqual(licence);
    expect(readJson<LicenceFields>('package.json').license).toBe('Apache-2.0');
    expect(lock.packages['']?.license).toBe('Apache-2.0');
    expect(readJson<LicenceFields>('clients/typescript/package.json').license).toBe('Apache-2.0');
  });

  it('allows every package of the lockfile, each exception still needed', () => {
    // Prepare
    const refused: string[] = [];
    const excepted = new Set<string>();
    // Act
    for (const [path, entry] of installable) {
      const licence = licenceOf(path, entry);
      if (licence !== undefined && spdxAllowed(licence, entry.dev ? DEV_PERMISSIVE : PERMISSIVE)) continue;
      const key = keyOf(path, entry);
      if (EXCEPTIONS[key]) excepted.add(key);
      else
        refused.push(
          `${path}@${entry.version}: ${licence ?? (isInstalled(path) ? 'no licence' : 'no licence in the lockfile, not installed')}${entry.dev ? ' (dev)' : ''}`,
        );
    }
    // Assess
    expect(installable.length).toBeGreaterThan(0);
    expect(refused).toEqual([]);
    expect(Object.keys(EXCEPTIONS).filter((key) => !excepted.has(key))).toEqual([]);
    expect(Object.entries(EXCEPTIONS).filter(([, { licence }]) => !spdxAllowed(licence, PERMISSIVE))).toEqual([]);
  });

  it('carries in NOTICE the NOTICE text of every production dependency that ships one', () => {
    // Prepare
    const notice = squeeze(readFileSync(join(ROOT, 'NOTICE'), 'utf8'));
    const production = installable.filter(([, entry]) => !entry.dev);
    const missing: string[] = [];
    // Act
    for (const [path, entry] of production.filter(([path]) => isInstalled(path))) {
      if (NOT_BUNDLED.some(({ name }) => name.test(entry.name ?? packageNameOf(path)))) continue;
      for (const file of readdirSync(join(ROOT, path)).filter((name) => /^notice(\.(txt|md))?$/i.test(name))) {
        if (!notice.includes(squeeze(readFileSync(join(ROOT, path, file), 'utf8')))) missing.push(`${path}/${file}`);
      }
    }
    // Assess
    expect(notice.startsWith('Market-Data Archive API (market-archive) Copyright 2026 the market-archive authors')).toBe(true);
    expect(missing).toEqual([]);
    expect(NOT_BUNDLED.filter(({ name }) => !production.some(([path, entry]) => name.test(entry.name ?? packageNameOf(path))))).toEqual([]);
  });

  it('evaluates SPDX expressions: OR passes on any alternative, AND needs every term', () => {
    // Prepare
    const allowed = new Set(['MIT', 'Apache-2.0', 'Zlib']);
    const cases: [string, boolean][] = [
      ['MIT', true],
      ['GPL-3.0', false],
      ['GPL-3.0-or-later', false],
      ['AGPL-3.0-only', false],
      ['LGPL-2.1+', false],
      ['SSPL-1.0', false],
      ['EUPL-1.2', false],
      ['(MIT OR GPL-3.0)', true],
      ['(GPL-3.0 OR MIT)', true],
      ['(GPL-2.0 OR AGPL-3.0)', false],
      ['MIT AND Zlib', true],
      ['MIT AND GPL-2.0', false],
      ['MIT OR GPL-2.0 AND LGPL-3.0', true],
      ['GPL-2.0 OR MIT AND LGPL-3.0', false],
      ['(GPL-2.0 OR MIT) AND (Apache-2.0 OR LGPL-3.0)', true],
      ['mit or gpl-3.0', true],
      ['gpl-3.0 and mit', false],
      ['Apache-2.0+', true],
      ['GPL-2.0-only WITH Classpath-exception-2.0', false],
      ['UNLICENSED', false],
      ['SEE LICENSE IN LICENSE.md', false],
      ['', false],
      ['(MIT', false],
      ['MIT)', false],
      ['MIT OR', false],
      ['MIT AND AND Zlib', false],
    ];
    // Act
    const results = cases.map(([expression]) => [expression, spdxAllowed(expression, allowed)]);
    // Assess
    expect(results).toEqual(cases);
    expect(parseSpdx('MIT OR Zlib AND (Apache-2.0 OR ISC)')).toEqual({
      kind: 'or',
      terms: [
        { kind: 'id', id: 'MIT' },
        {
          kind: 'and',
          terms: [
            { kind: 'id', id: 'Zlib' },
            {
              kind: 'or',
              terms: [
                { kind: 'id', id: 'Apache-2.0' },
                { kind: 'id', id: 'ISC' },
              ],
            },
          ],
        },
      ],
    });
  });

  it('reads the declared licence from the license field, a legacy object or a legacy licenses array', () => {
    // Act / Assess
    expect(declaredLicence({ license: 'MIT AND Zlib' })).toBe('MIT AND Zlib');
    expect(declaredLicence({ license: { type: 'ISC', url: 'https://example.com' } })).toBe('ISC');
    expect(declaredLicence({ licenses: [{ type: 'MIT', url: 'https://example.com' }] })).toBe('MIT');
    expect(declaredLicence({ licenses: [{ type: 'MIT' }, 'GPL-2.0'] })).toBe('(MIT) OR (GPL-2.0)');
    expect(declaredLicence({ licenses: [{ type: 'MIT' }, { url: 'https://example.com' }] })).toBeUndefined();
    expect(declaredLicence({ licenses: [] })).toBeUndefined();
    expect(declaredLicence({ license: '  ' })).toBeUndefined();
    expect(declaredLicence({})).toBeUndefined();
    expect(spdxAllowed(declaredLicence({ licenses: [{ type: 'GPL-2.0' }, { type: 'MIT' }] })!, PERMISSIVE)).toBe(true);
    expect(packageNameOf('node_modules/a/node_modules/@b/c')).toBe('@b/c');
  });
});

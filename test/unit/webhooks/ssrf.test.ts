import { BlockList } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowListed, checkHostName, parseDestination, validateDestination, type ResolveHost } from '#core/webhooks/ssrf.ts';
import { hostLiteral, isForbiddenAddress } from '#core/webhooks/ip-ranges.ts';

const PUBLIC_V4 = '93.184.216.34';
const PUBLIC_V6 = '2606:2800:220:1:248:1893:25c8:1946';

/** A resolver that answers every name with public addresses, so any refusal must come from the guard itself. */
const publicDns: ResolveHost = async () => [PUBLIC_V4, PUBLIC_V6];

/** A resolver built from a fixed table; unknown names fail like getaddrinfo's NXDOMAIN. */
function dns(table: Record<string, string[]>): ResolveHost & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const answer = table[host];
    if (answer) return answer;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  return Object.assign(resolve, { asked });
}

describe('parseDestination', () => {
  it('accepts an https URL and defaults the port to 443', () => {
    const parsed = parseDestination('https://hooks.example.com/in?x=1');
    expect(parsed).toMatchObject({ ok: true, host: 'hooks.example.com', port: 443 });
  });

  it('accepts any explicit port from 1 to 65535', () => {
    expect(parseDestination('https://hooks.example.com:8443/in')).toMatchObject({ ok: true, port: 8443 });
    expect(parseDestination('https://hooks.example.com:1/in')).toMatchObject({ ok: true, port: 1 });
    expect(parseDestination('https://hooks.example.com:65535/in')).toMatchObject({ ok: true, port: 65535 });
  });

  it('refuses port 0 and ports the parser cannot represent', () => {
    expect(parseDestination('https://hooks.example.com:0/in')).toEqual({ ok: false, reason: 'URL port must be between 1 and 65535' });
    expect(parseDestination('https://hooks.example.com:65536/in')).toMatchObject({ ok: false });
  });

  it('refuses every scheme but https', () => {
    for (const url of [
      'http://hooks.example.com/in',
      'ftp://hooks.example.com/in',
      'ws://hooks.example.com/',
      'file:///etc/passwd',
      'HTTP://hooks.example.com/',
    ]) {
      expect(parseDestination(url)).toEqual({ ok: false, reason: 'URL must use https' });
    }
  });

  it('refuses credentials in the URL, even empty ones the parser would drop', () => {
    for (const url of [
      'https://user:pass@hooks.example.com/',
      'https://user@hooks.example.com/',
      'https://:@hooks.example.com/',
      'https://@hooks.example.com/',
      'https://hooks.example.com@127.0.0.1/',
    ]) {
      expect(parseDestination(url)).toEqual({ ok: false, reason: 'URL must not contain credentials' });
    }
  });

  it('allows @ outside the authority (path, query)', () => {
    expect(parseDestination('https://hooks.example.com/a@b?c=d@e')).toMatchObject({ ok: true, host: 'hooks.example.com' });
  });

  it('refuses URLs longer than 2048 characters', () => {
    const base = 'https://hooks.example.com/';
    expect(parseDestination(base + 'a'.repeat(2048 - base.length))).toMatchObject({ ok: true });
    expect(parseDestination(base + 'a'.repeat(2049 - base.length))).toEqual({ ok: false, reason: 'URL must be at most 2048 characters' });
  });

  it('refuses whitespace and control characters the parser would silently strip', () => {
    for (const url of [
      ' https://hooks.example.com/',
      'https://hooks.example.com/ ',
      'https://hooks.\texample.com/',
      'https://hooks.example.com/\n',
      'https://hooks.example.com/\u0000',
    ]) {
      expect(parseDestination(url)).toEqual({ ok: false, reason: 'URL must not contain spaces or control characters' });
    }
  });

  it('refuses strings that are not absolute URLs', () => {
    for (const url of ['', 'hooks.example.com/in', '/in', 'https://', 'https://[::1/']) {
      expect(parseDestination(url)).toEqual({ ok: false, reason: 'URL is not a valid absolute URL' });
    }
  });

  it('reports IPv6 hosts without brackets', () => {
    expect(parseDestination(`https://[${PUBLIC_V6}]:8443/`)).toMatchObject({ ok: true, host: PUBLIC_V6, port: 8443 });
  });
});

describe('hostLiteral', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['00000177.0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['10.1.1', '10.1.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['169.254.169.254.', '169.254.169.254'],
    ['①②⑦.0.0.1', '127.0.0.1'],
    ['127。0。0。1', '127.0.0.1'],
    ['１２７．０．０．１', '127.0.0.1'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:7f00:1'],
    ['[::127.0.0.1]', '::7f00:1'],
    ['[FD00:EC2::254]', 'fd00:ec2::254'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[2001:db8:0:0:1:0:0:1]', '2001:db8::1:0:0:1'],
  ])('recognises %s as %s', (spelling, canonical) => {
    expect(hostLiteral(spelling)).toBe(canonical);
  });

  it.each([
    'example.com',
    'localhost',
    '127.0.0.1.nip.io',
    '1.2.3.4.5',
    '08.0.0.1',
    '4294967296',
    '256.0.0.1',
    '1.2.3.256',
    '1e3',
    '0x7g',
    '127..1',
    '127.0.0.1..',
    '',
    '[example.com]',
    '::gggg',
    'foo.0x7f',
  ])('does not take %s for an IP literal', (host) => {
    expect(hostLiteral(host)).toBeUndefined();
  });

  it('agrees with the WHATWG URL parser on every numeric IPv4 spelling', () => {
    // Each part written in decimal, octal or hex, with one to four parts and an optional trailing dot.
    const spelling = fc
      .tuple(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat({ max: 0xffffffff }), { minLength: 4, maxLength: 4 }),
        fc.array(fc.constantFrom(10, 8, 16), { minLength: 4, maxLength: 4 }),
        fc.boolean(),
      )
      .map(([count, values, bases, dot]) => {
        const parts = values.slice(0, count).map((v, i) => {
          const n = i === count - 1 ? v % 256 ** (5 - count) : v % 256;
          const base = bases[i]!;
          return base === 16 ? `0x${n.toString(16)}` : base === 8 ? `0${n.toString(8)}` : String(n);
        });
        return parts.join('.') + (dot ? '.' : '');
      });
    fc.assert(
      fc.property(spelling, (host) => {
        expect(hostLiteral(host)).toBe(new URL(`https://${host}/`).hostname);
      }),
    );
  });

  it('agrees with the WHATWG URL parser on which digit-and-dot strings are IPv4', () => {
    const host = fc.string({ unit: fc.constantFrom('0', '1', '7', '9', 'x', 'a', 'f', '.'), minLength: 1, maxLength: 14 });
    fc.assert(
      fc.property(host, (text) => {
        let parsed: string | undefined;
        try {
          const hostname = new URL(`https://${text}/`).hostname;
          parsed = /^\d+\.\d+\.\d+\.\d+$/.test(hostname) ? hostname : undefined;
        } catch {
          parsed = undefined;
        }
        const ours = hostLiteral(text);
        // Where the URL parser yields an IPv4 address we must yield the same; where we yield one, it must too.
        if (parsed !== undefined || ours !== undefined) expect(ours).toBe(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats IPv6 exactly as the URL parser does', () => {
    const hextets = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(hextets, (h) => {
        const full = h.map((x) => x.toString(16)).join(':');
        expect(`[${hostLiteral(full)}]`).toBe(new URL(`https://[${full}]/`).hostname);
      }),
    );
  });
});

describe('isForbiddenAddress: IPv4', () => {
  // [range, an address inside, the nearest public addresses outside]
  const ranges: [string, string[], string[]][] = [
    ['0.0.0.0/8', ['0.0.0.0', '0.255.255.255'], ['1.0.0.0']],
    ['10.0.0.0/8', ['10.0.0.0', '10.255.255.255'], ['9.255.255.255', '11.0.0.0']],
    ['100.64.0.0/10', ['100.64.0.0', '100.127.255.255', '100.100.100.200'], ['100.63.255.255', '100.128.0.0']],
    ['127.0.0.0/8', ['127.0.0.1', '127.255.255.255'], ['126.255.255.255', '128.0.0.0']],
    ['169.254.0.0/16', ['169.254.0.1', '169.254.169.254', '169.254.170.2'], ['169.253.255.255', '169.255.0.0']],
    ['172.16.0.0/12', ['172.16.0.0', '172.31.255.255'], ['172.15.255.255', '172.32.0.0']],
    ['192.0.0.0/24', ['192.0.0.0', '192.0.0.192'], ['191.255.255.255', '192.0.1.0']],
    ['192.0.2.0/24', ['192.0.2.1'], ['192.0.1.255', '192.0.3.0']],
    ['192.88.99.0/24', ['192.88.99.1'], ['192.88.98.255', '192.88.100.0']],
    ['192.168.0.0/16', ['192.168.0.1', '192.168.255.255'], ['192.167.255.255', '192.169.0.0']],
    ['198.18.0.0/15', ['198.18.0.0', '198.19.255.255'], ['198.17.255.255', '198.20.0.0']],
    ['198.51.100.0/24', ['198.51.100.7'], ['198.51.99.255', '198.51.101.0']],
    ['203.0.113.0/24', ['203.0.113.9'], ['203.0.112.255', '203.0.114.0']],
    // 224/4, 240/4 and 255.255.255.255 are contiguous, so 223.255.255.255 is the only public neighbour.
    ['224.0.0.0/4', ['224.0.0.1', '239.255.255.255'], ['223.255.255.255']],
    ['240.0.0.0/4', ['240.0.0.0', '255.255.255.254'], ['223.255.255.255']],
    ['255.255.255.255/32', ['255.255.255.255'], ['223.255.255.255']],
  ];

  it.each(ranges)('refuses %s and accepts its public neighbours', (_range, inside, outside) => {
    for (const ip of inside) expect(isForbiddenAddress(ip), ip).toBeTypeOf('string');
    for (const ip of outside) expect(isForbiddenAddress(ip), ip).toBeUndefined();
  });

  it('names the cloud metadata address specifically', () => {
    expect(isForbiddenAddress('169.254.169.254')).toMatch(/metadata/);
  });

  it('accepts ordinary public addresses', () => {
    for (const ip of [PUBLIC_V4, '8.8.8.8', '1.1.1.1', '52.94.236.248']) expect(isForbiddenAddress(ip), ip).toBeUndefined();
  });

  it('matches an independent BlockList of the same ranges for any IPv4 address', () => {
    const list = new BlockList();
    for (const [range] of ranges) {
      const [net, prefix] = range.split('/') as [string, string];
      list.addSubnet(net, Number(prefix), 'ipv4');
    }
    const octet = fc.integer({ min: 0, max: 255 });
    // Bias towards the interesting first octets so every range is exercised.
    const first = fc.oneof(fc.constantFrom(0, 10, 100, 126, 127, 128, 169, 172, 192, 198, 203, 223, 224, 239, 240, 255), octet);
    fc.assert(
      fc.property(first, octet, octet, octet, (a, b, c, d) => {
        const ip = `${a}.${b}.${c}.${d}`;
        expect(isForbiddenAddress(ip) !== undefined, ip).toBe(list.check(ip, 'ipv4'));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('isForbiddenAddress: IPv6', () => {
  const ranges: [string, string[], string[]][] = [
    // ::, ::1 and the other embedded-IPv4 forms sit in ::/96; ::1:0:0 is the first address past it.
    ['::', ['::', '0:0:0:0:0:0:0:0'], ['::1:0:0']],
    ['::1', ['::1', '0:0:0:0:0:0:0:1'], ['::1:0:0']],
    ['fe80::/10', ['fe80::1', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe80::1%eth0'], ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['fc00::/7', ['fc00::', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'fe00::']],
    // Below ff00::/8 lies site-local fec0::/10, also refused; fe7f:… is the nearest public neighbour.
    ['ff00::/8', ['ff02::1', 'ff0e::101', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff']],
    ['fec0::/10', ['fec0::1', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['fe00::']],
    ['2001:db8::/32', ['2001:db8::1', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'], ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::']],
    ['100::/64', ['100::', '100::ffff:ffff:ffff:ffff'], ['ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '100:0:0:1::']],
    ['::ffff:0:0/96 (IPv4-mapped)', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:8.8.8.8'], ['::fffe:ffff:ffff', '0:0:0:1::']],
    ['::/96 (IPv4-compatible)', ['::127.0.0.1', '::7f00:1', '::8.8.8.8'], ['::1:0:0']],
    ['64:ff9b:1::/48 (local-use NAT64)', ['64:ff9b:1::a00:1', '64:ff9b:1:ffff::5db8:d822'], ['64:ff9b:0:ffff:ffff:ffff:ffff:ffff', '64:ff9b:2::']],
    ['fd00:ec2::254 (cloud metadata)', ['fd00:ec2::254'], [PUBLIC_V6]],
  ];

  it.each(ranges)('refuses %s and accepts its public neighbours', (_range, inside, outside) => {
    for (const ip of inside) expect(isForbiddenAddress(ip), ip).toBeTypeOf('string');
    for (const ip of outside) expect(isForbiddenAddress(ip), ip).toBeUndefined();
  });

  it('names the IPv6 cloud metadata address specifically', () => {
    expect(isForbiddenAddress('fd00:ec2::254')).toMatch(/metadata/);
    expect(isForbiddenAddress('[FD00:0EC2:0000::0254]')).toMatch(/metadata/);
  });

  it('refuses NAT64 addresses embedding a forbidden IPv4 and accepts those embedding a public one', () => {
    expect(isForbiddenAddress('64:ff9b::7f00:1')).toMatch(/NAT64.*loopback/);
    expect(isForbiddenAddress('64:ff9b::127.0.0.1')).toMatch(/NAT64.*loopback/);
    expect(isForbiddenAddress('64:ff9b::a9fe:a9fe')).toMatch(/NAT64.*metadata/);
    expect(isForbiddenAddress('64:ff9b::a00:1')).toMatch(/NAT64.*private/);
    expect(isForbiddenAddress('64:ff9b::5db8:d822')).toBeUndefined();
    // Just past the /96, the last 32 bits no longer carry an IPv4 address.
    expect(isForbiddenAddress('64:ff9b::1:7f00:1')).toBeUndefined();
  });

  it('refuses 6to4 addresses embedding a forbidden IPv4 and accepts those embedding a public one', () => {
    expect(isForbiddenAddress('2002:7f00:1::')).toMatch(/6to4.*loopback/);
    expect(isForbiddenAddress('2002:a9fe:a9fe::')).toMatch(/6to4.*metadata/);
    expect(isForbiddenAddress('2002:c0a8:101::1')).toMatch(/6to4.*private/);
    expect(isForbiddenAddress('2002:5db8:d822::1')).toBeUndefined();
    expect(isForbiddenAddress('2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBeUndefined();
    expect(isForbiddenAddress('2003::7f00:1')).toBeUndefined();
  });

  it('refuses Teredo addresses whose client or server is a forbidden IPv4', () => {
    // Server 65.54.227.120 (public); client IPv4 stored bit-inverted in the last 32 bits.
    expect(isForbiddenAddress('2001:0:4136:e378:8000:63bf:80ff:fffe')).toMatch(/Teredo.*client.*loopback/); // ~127.0.0.1
    expect(isForbiddenAddress('2001:0:4136:e378:8000:63bf:5601:5601')).toMatch(/Teredo.*client.*metadata/); // ~169.254.169.254
    expect(isForbiddenAddress('2001:0:a9fe:a9fe:8000:63bf:a247:27dd')).toMatch(/Teredo.*server.*metadata/);
    expect(isForbiddenAddress('2001:0:4136:e378:8000:63bf:a247:27dd')).toBeUndefined(); // ~93.184.216.34
    expect(isForbiddenAddress('2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBeUndefined();
    expect(isForbiddenAddress('2001:1::7f00:1')).toBeUndefined();
  });

  it('refuses every embedded form of 127.0.0.1 and 169.254.169.254', () => {
    const forms = [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1',
      '::7f00:1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '::169.254.169.254',
      '::a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::',
      '2001:0:4136:e378:8000:63bf:5601:5601',
    ];
    for (const ip of forms) expect(isForbiddenAddress(ip), ip).toMatch(/loopback|metadata/);
  });

  it('accepts ordinary public addresses', () => {
    for (const ip of [PUBLIC_V6, '2001:4860:4860::8888', '2a00:1450:4001:82a::200e']) expect(isForbiddenAddress(ip), ip).toBeUndefined();
  });

  it('refuses anything that is not an IP address', () => {
    for (const text of ['example.com', '', '2130706433', '0x7f.1', '1.2.3', '::gggg']) expect(isForbiddenAddress(text), text).toBe('not an IP address');
  });
});

describe('checkHostName', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    'api.localhost',
    'api.localhost.',
    'printer.local',
    'printer.local.',
    'metadata.google.internal',
    'metadata.google.internal.',
    'db.internal',
    'host.localdomain',
    'router.home.arpa',
    'intranet',
    'metadata',
    'db',
    'db.',
  ])('refuses %s before DNS', (host) => {
    expect(checkHostName(host)).toBeTypeOf('string');
  });

  it.each(['hooks.example.com', 'example.com.', 'localhost.example.com', 'internal.example.com', 'local-bank.com', 'xn--bcher-kva.example'])(
    'lets %s through to DNS',
    (host) => {
      expect(checkHostName(host)).toBeUndefined();
    },
  );
});

describe('allowListed', () => {
  it('matches exactly and case-insensitively, comparing IP literals canonically', () => {
    expect(allowListed('LocalHost', ['localhost'])).toBe(true);
    expect(allowListed('localhost.', ['localhost'])).toBe(true);
    expect(allowListed('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(allowListed('::1', ['[0:0::1]'])).toBe(true);
    expect(allowListed('127.0.0.2', ['127.0.0.1'])).toBe(false);
    expect(allowListed('api.localhost', ['localhost'])).toBe(false);
    expect(allowListed('localhost', [])).toBe(false);
  });
});

describe('validateDestination', () => {
  // Every spelling from the reference's bypass table (section 7), plus the variants the URL parser
  // also folds onto loopback or metadata.
  const bypasses = [
    '2130706433',
    '0177.0.0.1',
    '0x7f.1',
    '127.1',
    '017700000001',
    '0',
    '0.0.0.0',
    '①②⑦.0.0.1',
    '[::ffff:127.0.0.1]',
    '[::127.0.0.1]',
    '[2002:a9fe:a9fe::]',
    '[64:ff9b::a9fe:a9fe]',
    '169.254.169.254',
    '169.254.169.254.',
    '[fd00:ec2::254]',
    'metadata.google.internal',
    '0x7f000001',
    '0x7f.0.0.1',
    '0x',
    '10.1.1',
    '127。0。0。1',
    '%31%32%37.0.0.1',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:127.0.0.1]',
    '[::]',
    '[::1]',
    '[fe80::1]',
    '[fc00::1]',
    '[2001:0:4136:e378:8000:63bf:80ff:fffe]',
    '[64:ff9b::127.0.0.1]',
    '[2002:7f00:1::]',
    'localhost',
    'localhost.',
    'LOCALHOST',
    'api.localhost',
    'printer.local',
    'metadata.google.internal.',
    'metadata',
  ];

  it.each(bypasses)('refuses https://%s/hook', async (spelling) => {
    const result = await validateDestination(`https://${spelling}/hook`, publicDns);
    expect(result.ok).toBe(false);
  });

  it('checks IP literals without asking DNS', async () => {
    const resolve = dns({});
    expect(await validateDestination('https://2130706433/hook', resolve)).toEqual({
      ok: false,
      reason: 'URL host 127.0.0.1 is a loopback address (127.0.0.0/8)',
    });
    expect(await validateDestination(`https://${PUBLIC_V4}/hook`, resolve)).toMatchObject({ ok: true, addresses: [PUBLIC_V4] });
    expect(await validateDestination(`https://[${PUBLIC_V6}]:8443/hook`, resolve)).toMatchObject({ ok: true, addresses: [PUBLIC_V6] });
    expect(resolve.asked).toEqual([]);
  });

  it('refuses http, userinfo and port 0 before anything else', async () => {
    expect(await validateDestination('http://hooks.example.com/hook', publicDns)).toEqual({ ok: false, reason: 'URL must use https' });
    expect(await validateDestination('https://user:pass@hooks.example.com/hook', publicDns)).toEqual({ ok: false, reason: 'URL must not contain credentials' });
    expect(await validateDestination('https://hooks.example.com:0/hook', publicDns)).toMatchObject({ ok: false });
  });

  it('accepts a public name and returns every resolved address for pinning', async () => {
    const result = await validateDestination('https://hooks.example.com/hook', dns({ 'hooks.example.com': [PUBLIC_V4, PUBLIC_V6] }));
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.url.href).toBe('https://hooks.example.com/hook');
      expect(result.addresses).toEqual([PUBLIC_V4, PUBLIC_V6]);
    }
  });

  it('refuses a name resolving to one public and one private address', async () => {
    const result = await validateDestination('https://mixed.example.com/hook', dns({ 'mixed.example.com': [PUBLIC_V4, '10.0.0.5'] }));
    expect(result).toEqual({ ok: false, reason: 'URL host resolves to a private address (10.0.0.0/8)' });
  });

  it('refuses a name whose AAAA record is private even when its A record is public', async () => {
    const result = await validateDestination('https://v6.example.com/hook', dns({ 'v6.example.com': [PUBLIC_V4, 'fd00:ec2::254'] }));
    expect(result).toEqual({ ok: false, reason: 'URL host resolves to the cloud metadata address (fd00:ec2::254)' });
  });

  it('refuses public names that point at loopback (nip.io style)', async () => {
    const result = await validateDestination('https://127.0.0.1.nip.io/hook', dns({ '127.0.0.1.nip.io': ['127.0.0.1'] }));
    expect(result).toMatchObject({ ok: false, reason: expect.stringMatching(/loopback/) });
  });

  it('does not echo the resolved private address back to the caller', async () => {
    const result = await validateDestination('https://db.example.com/hook', dns({ 'db.example.com': ['10.1.2.3'] }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toContain('10.1.2.3');
  });

  it('refuses a name that resolves to nothing', async () => {
    expect(await validateDestination('https://empty.example.com/hook', dns({ 'empty.example.com': [] }))).toEqual({
      ok: false,
      reason: 'URL host does not resolve',
    });
    expect(await validateDestination('https://missing.example.com/hook', dns({}))).toEqual({ ok: false, reason: 'URL host does not resolve' });
  });

  it('refuses resolver answers that are not IP addresses', async () => {
    const result = await validateDestination('https://odd.example.com/hook', dns({ 'odd.example.com': ['not-an-ip'] }));
    expect(result).toEqual({ ok: false, reason: 'URL host resolves to not an IP address' });
  });

  it('lets resolver infrastructure failures propagate rather than blaming the URL', async () => {
    const failing: ResolveHost = async () => {
      throw Object.assign(new Error('queryA ETIMEOUT'), { code: 'ETIMEOUT' });
    };
    await expect(validateDestination('https://hooks.example.com/hook', failing)).rejects.toThrow('ETIMEOUT');
  });

  it('accepts an allow-listed loopback target only when it is listed', async () => {
    const resolve = dns({ localhost: ['127.0.0.1', '::1'] });
    expect(await validateDestination('https://127.0.0.1:4443/hook', resolve)).toMatchObject({ ok: false });
    expect(await validateDestination('https://127.0.0.1:4443/hook', resolve, { allowHosts: ['127.0.0.1'] })).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1'],
    });
    expect(await validateDestination('https://localhost:4443/hook', resolve)).toMatchObject({ ok: false });
    expect(await validateDestination('https://LOCALHOST:4443/hook', resolve, { allowHosts: ['localhost'] })).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1', '::1'],
    });
    // Listing one loopback host does not open the others.
    expect(await validateDestination('https://127.0.0.2:4443/hook', resolve, { allowHosts: ['127.0.0.1'] })).toMatchObject({ ok: false });
    expect(await validateDestination('https://169.254.169.254/hook', resolve, { allowHosts: ['localhost', '127.0.0.1'] })).toMatchObject({ ok: false });
  });

  it('still requires https and no credentials for allow-listed hosts', async () => {
    const options = { allowHosts: ['127.0.0.1'] };
    expect(await validateDestination('http://127.0.0.1/hook', publicDns, options)).toEqual({ ok: false, reason: 'URL must use https' });
    expect(await validateDestination('https://u:p@127.0.0.1/hook', publicDns, options)).toEqual({ ok: false, reason: 'URL must not contain credentials' });
  });
});

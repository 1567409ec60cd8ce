/**
 * Which IP addresses a webhook may never reach (private, loopback, link-local, cloud metadata,
 * and their IPv6 and IPv4-mapped spellings), and the loose IPv4 spellings a host name can hide
 * (`0x7f.1`, `2130706433`), normalised before they are judged.
 */
import { isIP } from 'node:net';

type V4Range = readonly [base: string, prefix: number, reason: string];

/**
 * Refused IPv4 ranges, first match wins (so the /32 entries precede the ranges that contain them and
 * give the more useful reason). Reasons never quote the address itself: for a DNS name that would turn
 * the create route into an oracle for what our resolver answers.
 */
export const V4_RANGES: readonly V4Range[] = [
  ['169.254.169.254', 32, 'the cloud metadata address (169.254.169.254)'],
  ['255.255.255.255', 32, 'the broadcast address (255.255.255.255)'],
  // 0.0.0.0 reaches local services on Linux and macOS, so the whole "this network" block goes.
  ['0.0.0.0', 8, 'an unspecified ("this network") address (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'a private address (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address (100.64.0.0/10)'],
  // Loopback also hosts the Lambda Runtime API (127.0.0.1:9001), reachable even without a VPC.
  ['127.0.0.0', 8, 'a loopback address (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'a link-local address (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'a private address (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'an IETF protocol assignment address (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'a documentation address (192.0.2.0/24)'],
  ['192.88.99.0', 24, 'a 6to4 relay anycast address (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'a private address (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'a benchmarking address (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'a documentation address (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'a documentation address (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'a multicast address (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'a reserved address (240.0.0.0/4)'],
];

const V4_TABLE = V4_RANGES.map(([base, prefix, reason]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { net: (dottedToNumber(base) & mask) >>> 0, mask, reason };
});

function forbiddenV4(value: number): string | undefined {
  for (const { net, mask, reason } of V4_TABLE) if ((value & mask) >>> 0 === net) return reason;
  return undefined;
}

/** Hextets of a fixed IPv6 prefix, compared bit by bit up to `bits`. */
function inPrefix(h: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((h[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const v4FromHextets = (hi: number, lo: number): number => ((hi << 16) | lo) >>> 0;

/**
 * IPv6 checks. Ranges that carry an IPv4 address are decoded and the IPv4 checked, because
 * `::ffff:7f00:1`, `2002:7f00:1::` and the like reach (or are translated to) the IPv4 they embed.
 */
function forbiddenV6(h: readonly number[]): string | undefined {
  if (h.every((x) => x === 0)) return 'the unspecified address (::)';
  if (inPrefix(h, [0, 0, 0, 0, 0, 0, 0, 1], 128)) return 'the loopback address (::1)';
  if (inPrefix(h, [0, 0, 0, 0, 0, 0xffff], 96)) {
    // Dual-stack sockets dial the embedded IPv4; a public host never publishes these as AAAA, so all
    // of them are refused, with the embedded reason when there is one.
    const inner = forbiddenV4(v4FromHextets(h[6]!, h[7]!));
    return inner ? `an IPv4-mapped IPv6 address embedding ${inner}` : 'an IPv4-mapped IPv6 address (::ffff:0:0/96)';
  }
  if (inPrefix(h, [0, 0, 0, 0, 0, 0], 96)) {
    // IPv4-compatible (::a.b.c.d) is deprecated (RFC 4291) and some stacks still route it as IPv4.
    const inner = forbiddenV4(v4FromHextets(h[6]!, h[7]!));
    return inner ? `an IPv4-compatible IPv6 address embedding ${inner}` : 'an IPv4-compatible IPv6 address (::/96)';
  }
  if (inPrefix(h, [0, 0, 0, 0, 0xffff, 0], 96)) return 'an IPv4-translated address (::ffff:0:0:0/96)';
  if (inPrefix(h, [0x64, 0xff9b, 0, 0, 0, 0], 96)) {
    // Well-known NAT64 prefix: a public IPv4 behind it is legitimate on IPv6-only networks.
    const inner = forbiddenV4(v4FromHextets(h[6]!, h[7]!));
    if (inner) return `a NAT64 address embedding ${inner}`;
  }
  // Local-use NAT64 (RFC 8215): the operator picks where the IPv4 sits, so it cannot be decoded
  // reliably, and it is never globally routed.
  if (inPrefix(h, [0x64, 0xff9b, 1], 48)) return 'a local-use NAT64 address (64:ff9b:1::/48)';
  if (inPrefix(h, [0x100, 0, 0, 0], 64)) return 'a discard-only address (100::/64)';
  if (inPrefix(h, [0x2001, 0xdb8], 32)) return 'a documentation address (2001:db8::/32)';
  if (inPrefix(h, [0x2001, 0], 32)) {
    // Teredo: server IPv4 in bits 32-63, client IPv4 bit-inverted in the last 32 bits.
    const server = forbiddenV4(v4FromHextets(h[2]!, h[3]!));
    if (server) return `a Teredo address whose server is ${server}`;
    const client = forbiddenV4(~v4FromHextets(h[6]!, h[7]!) >>> 0);
    if (client) return `a Teredo address whose client is ${client}`;
  }
  if (inPrefix(h, [0x2002], 16)) {
    const inner = forbiddenV4(v4FromHextets(h[1]!, h[2]!));
    if (inner) return `a 6to4 address embedding ${inner}`;
  }
  // AWS's IPv6 instance metadata endpoint; inside fc00::/7 anyway, named for a clearer message.
  if (inPrefix(h, [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254], 128)) return 'the cloud metadata address (fd00:ec2::254)';
  if (inPrefix(h, [0xfc00], 7)) return 'a unique local address (fc00::/7)';
  if (inPrefix(h, [0xfe80], 10)) return 'a link-local address (fe80::/10)';
  // Deprecated site-local (RFC 3879) but still honoured by some stacks; never public.
  if (inPrefix(h, [0xfec0], 10)) return 'a site-local address (fec0::/10)';
  if (inPrefix(h, [0xff00], 8)) return 'a multicast address (ff00::/8)';
  return undefined;
}

/**
 * Why an address (as a resolver returns it: canonical IPv4 dotted quad or IPv6, brackets and zone
 * tolerated) may not be a webhook destination, or undefined when it is public. Anything that is not
 * an IP address is refused: this is a guard, so it fails closed.
 */
export function isForbiddenAddress(ip: string): string | undefined {
  const text = stripZone(stripBrackets(ip.trim()));
  const kind = isIP(text);
  if (kind === 4) return forbiddenV4(dottedToNumber(text));
  if (kind === 6) return forbiddenV6(ipv6Hextets(text));
  return 'not an IP address';
}

// ---------------------------------------------------------------------------------------------------
// IP literals in hosts
// ---------------------------------------------------------------------------------------------------

/**
 * If `host` is an IP literal in any spelling the WHATWG URL parser or libc's inet_aton accepts, the
 * canonical address (dotted quad, or compressed lower-case IPv6 without brackets); else undefined.
 *
 * `new URL().hostname` is already canonical for every such spelling (Node 20 turns `2130706433`,
 * `0x7f.1`, `0177.0.0.1`, `127.1`, `①②⑦.0.0.1` and `169.254.169.254.` into dotted quads and IPv6 into
 * compressed hex), and callers should classify that. This function still parses raw strings the same
 * way, so a host taken from anywhere else cannot slip past as a "name".
 */
export function hostLiteral(host: string): string | undefined {
  let text = host.trim();
  if (text.startsWith('[') || text.includes(':')) {
    const inner = stripZone(stripBrackets(text));
    return isIP(inner) === 6 ? formatIPv6(ipv6Hextets(inner)) : undefined;
  }
  // The URL parser percent-decodes hosts and applies IDNA mapping (full-width digits, ideographic
  // full stops) before its IPv4 parser runs; do the same here.
  if (text.includes('%')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return undefined;
    }
  }
  text = text
    .normalize('NFKC')
    .replace(/[\u3002\uff0e\uff61]/g, '.')
    .toLowerCase();
  const value = parseIPv4Loose(text);
  return value === undefined ? undefined : numberToDotted(value);
}

/**
 * The WHATWG IPv4 parser (also what inet_aton accepts): one to four dot-separated parts, each
 * decimal, octal (leading 0) or hex (0x, where a bare `0x` is 0); one trailing dot ignored; every
 * part but the last at most 255, the last filling the remaining bytes. `127.1` is 127.0.0.1 and
 * `10.1.1` is 10.1.0.1.
 */
function parseIPv4Loose(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 1 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) n = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) n = parseInt(part, 10);
    else return undefined;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Host names
// ---------------------------------------------------------------------------------------------------

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `fe80::1%eth0` is what libc returns for scoped addresses; the scope does not change the class. */
function stripZone(host: string): string {
  const at = host.indexOf('%');
  return at >= 0 && host.includes(':') ? host.slice(0, at) : host;
}

function dottedToNumber(dotted: string): number {
  return dotted.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function numberToDotted(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Eight hextets of an address `isIP` has already accepted as IPv6 (zone removed). */
function ipv6Hextets(text: string): number[] {
  let body = text.toLowerCase();
  // A trailing dotted quad (::ffff:127.0.0.1) becomes its two hextets.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v = dottedToNumber(dotted[1]!);
    body = `${body.slice(0, dotted.index)}${(v >>> 16).toString(16)}:${(v & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = body.split('::') as [string, string | undefined];
  const words = (s: string) => (s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  if (tail === undefined) return words(head);
  const left = words(head);
  const right = words(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** RFC 5952 text (the same text `new URL` puts between the brackets): longest zero run of 2+ compressed. */
function formatIPv6(h: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (h[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && h[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = h.map((x) => x.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

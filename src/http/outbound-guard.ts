/**
 * What the outbound fetch may connect to. Server-side fetches (issuer discovery, JWKS, WebID profiles)
 * take URLs from strangers, so without this rule anyone could make the server read its own loopback
 * services, the private network, or a cloud metadata endpoint (169.254.169.254) for them.
 */

/** A refused target or a broken limit of the outbound fetch. */
export class OutboundFetchRefused extends Error {
  constructor(url: string, reason: string) {
    super(`refused to fetch ${url}: ${reason}`);
    this.name = 'OutboundFetchRefused';
  }
}

/** `a.b.c.d` in strict dotted decimal (what URL parsing and DNS answers give), as four octets. */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets = parts.map((part) => (/^(0|[1-9]\d{0,2})$/.test(part) ? Number(part) : NaN));
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** An IPv6 address (`::` shorthand, a trailing dotted IPv4, a zone `%eth0` ignored) as eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  let rest = text.replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!);
    if (!v4) return null;
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    // Keep a `::` that ends right before the IPv4 part; drop the single `:` that separates it.
    rest = rest.slice(0, dotted.index).endsWith(':') ? rest.slice(0, dotted.index + 1) : rest.slice(0, dotted.index);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groupsOf(halves[0]!);
  const after = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if ([...head, ...after].some((group) => !/^[0-9a-f]{1,4}$/i.test(group))) return null;
  const known = head.length + after.length + tail.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const zeros = Array<number>(8 - known).fill(0);
  return [...head.map((g) => parseInt(g, 16)), ...zeros, ...after.map((g) => parseInt(g, 16)), ...tail];
}

type Range = readonly [prefix: readonly number[], bits: number, reason: string];

/** IPv4 ranges that are not public unicast (RFC 6890 and the IANA special-purpose registry). */
const IPV4_RANGES: readonly Range[] = [
  [[0, 0, 0, 0], 8, 'an unspecified ("this network") address'],
  [[10, 0, 0, 0], 8, 'a private address'],
  [[100, 64, 0, 0], 10, 'a carrier-grade NAT address'],
  [[127, 0, 0, 0], 8, 'a loopback address'],
  [[169, 254, 0, 0], 16, 'a link-local address'],
  [[172, 16, 0, 0], 12, 'a private address'],
  [[192, 0, 0, 0], 24, 'an IETF protocol address'],
  [[192, 0, 2, 0], 24, 'a documentation address'],
  [[192, 88, 99, 0], 24, 'a 6to4 relay address'],
  [[192, 168, 0, 0], 16, 'a private address'],
  [[198, 18, 0, 0], 15, 'a benchmarking address'],
  [[198, 51, 100, 0], 24, 'a documentation address'],
  [[203, 0, 113, 0], 24, 'a documentation address'],
  [[224, 0, 0, 0], 4, 'a multicast address'],
  [[240, 0, 0, 0], 4, 'a reserved or broadcast address'],
];

/** IPv6 ranges that are not public unicast, as 16-bit groups. Ranges that embed an IPv4 address are below. */
const IPV6_RANGES: readonly Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0], 128, 'an unspecified address'],
  [[0, 0, 0, 0, 0, 0, 0, 1], 128, 'a loopback address'],
  [[0x100, 0, 0, 0], 64, 'a discard-only address'],
  [[0x2001, 0xdb8], 32, 'a documentation address'],
  [[0xfc00], 7, 'a private (unique local) address'],
  [[0xfe80], 10, 'a link-local address'],
  [[0xfec0], 10, 'a site-local address'],
  [[0xff00], 8, 'a multicast address'],
];

function inRange(value: readonly number[], [prefix, bits]: Range, width: number): boolean {
  for (let index = 0; bits > 0; index++, bits -= width) {
    const mask = bits >= width ? (1 << width) - 1 : ((1 << width) - 1) ^ ((1 << (width - bits)) - 1);
    if (((value[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Reason(octets: readonly number[]): string | null {
  return IPV4_RANGES.find((range) => inRange(octets, range, 8))?.[2] ?? null;
}

const octetsOf = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff];

/** The IPv4 address an IPv6 address stands for: mapped, compatible, NAT64, 6to4 and Teredo forms. */
function embeddedIPv4(groups: readonly number[]): number[] | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroHead = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroHead && (g5 === 0xffff || g5 === 0)) return octetsOf(g6, g7); // ::ffff:a.b.c.d and ::a.b.c.d
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0xffff && g5 === 0) return octetsOf(g6, g7); // ::ffff:0:a.b.c.d
  if (g0 === 0x64 && g1 === 0xff9b) return octetsOf(g6, g7); // NAT64 64:ff9b::/96 and 64:ff9b:1::/48
  if (g0 === 0x2002) return octetsOf(g1, g2); // 6to4
  if (g0 === 0x2001 && g1 === 0) return octetsOf(g6 ^ 0xffff, g7 ^ 0xffff); // Teredo: the client address, inverted
  return null;
}

/**
 * Why the server must not connect to an IP address (loopback, private, link-local, multicast, unspecified,
 * carrier-grade NAT, documentation and other special ranges, also when written as IPv4 inside IPv6), or
 * null for a public unicast address. Text that is no IP address is refused too.
 */
export function forbiddenAddressReason(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIPv4(bare);
  if (v4) return ipv4Reason(v4);
  const v6 = parseIPv6(bare);
  if (!v6) return 'not an IP address';
  const own = IPV6_RANGES.find((range) => inRange(v6, range, 16))?.[2];
  if (own) return own;
  const embedded = embeddedIPv4(v6);
  const reason = embedded && ipv4Reason(embedded);
  return reason ? `${reason} (inside an IPv6 address)` : null;
}

export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return parseIPv4(bare) !== null || parseIPv6(bare) !== null;
}

/**
 * The checks a URL must pass before any connection: http or https and no credentials in it, always; unless
 * `allowPrivate`, also a host that is neither a forbidden IP literal nor a `localhost` name. Host names are
 * checked again on their resolved addresses by runtimes that can resolve them.
 */
export function refuseUnsafeUrl(url: URL, allowPrivate = false): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundFetchRefused(url.href, `only http and https are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new OutboundFetchRefused(url.href, 'URLs with credentials are not fetched');
  if (allowPrivate) return;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) throw new OutboundFetchRefused(url.href, `${host} is a loopback name`);
  if (isIpLiteral(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) throw new OutboundFetchRefused(url.href, `${host} is ${reason}`);
  }
}

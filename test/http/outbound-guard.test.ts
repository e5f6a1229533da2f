import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, OutboundFetchRefused, parseIPv6, refuseUnsafeUrl } from '../../src/http/outbound-guard.ts';

describe('forbiddenAddressReason', () => {
  it('refuses loopback, private, link-local, multicast, unspecified, CGNAT and special IPv4 ranges', () => {
    const cases: Record<string, RegExp> = {
      '127.0.0.1': /loopback/,
      '127.255.255.254': /loopback/,
      '10.1.2.3': /private/,
      '172.16.0.1': /private/,
      '172.31.255.255': /private/,
      '192.168.1.1': /private/,
      '169.254.169.254': /link-local/,
      '224.0.0.1': /multicast/,
      '239.255.255.250': /multicast/,
      '0.0.0.0': /unspecified/,
      '100.64.0.1': /carrier-grade NAT/,
      '100.127.255.255': /carrier-grade NAT/,
      '255.255.255.255': /broadcast/,
      '192.0.2.1': /documentation/,
      '198.18.0.1': /benchmarking/,
    };
    for (const [address, reason] of Object.entries(cases)) expect(forbiddenAddressReason(address), address).toMatch(reason);
  });

  it('lets public unicast addresses pass, including the neighbours of forbidden ranges', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '169.253.255.255', '11.0.0.1', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450::1']) {
      expect(forbiddenAddressReason(address), address).toBeNull();
    }
  });

  it('refuses IPv6 loopback, unspecified, ULA, link-local, multicast and IPv4 forbidden addresses written as IPv6', () => {
    const cases: Record<string, RegExp> = {
      '::1': /loopback/,
      '[::1]': /loopback/,
      '::': /unspecified/,
      'fc00::1': /unique local/,
      'fd12:3456::1': /unique local/,
      'fe80::1%eth0': /link-local/,
      'febf::1': /link-local/,
      'ff02::1': /multicast/,
      '::ffff:127.0.0.1': /loopback.*inside an IPv6/,
      '::ffff:7f00:1': /loopback.*inside an IPv6/,
      '::ffff:169.254.169.254': /link-local.*inside an IPv6/,
      '::ffff:a9fe:a9fe': /link-local.*inside an IPv6/,
      '::ffff:10.0.0.1': /private.*inside an IPv6/,
      '64:ff9b::192.168.0.1': /private.*inside an IPv6/,
      '2002:7f00:1::': /loopback.*inside an IPv6/,
      '::127.0.0.1': /loopback/,
    };
    for (const [address, reason] of Object.entries(cases)) expect(forbiddenAddressReason(address), address).toMatch(reason);
    expect(forbiddenAddressReason('::ffff:8.8.8.8')).toBeNull();
  });

  it('refuses text that is not an IP address', () => {
    for (const text of ['example.org', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1:2:3:4:5:6:7:8:9', '1::2::3', 'gggg::1', '']) expect(forbiddenAddressReason(text), text).toBe('not an IP address');
  });

  it('parses the IPv6 forms', () => {
    expect(parseIPv6('1::1.2.3.4')).toEqual([1, 0, 0, 0, 0, 0, 0x102, 0x304]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('refuseUnsafeUrl', () => {
  const refused = (url: string) => {
    try {
      refuseUnsafeUrl(new URL(url));
      return null;
    } catch (error) {
      expect(error).toBeInstanceOf(OutboundFetchRefused);
      return (error as Error).message;
    }
  };

  it('refuses literal forbidden addresses however the URL spells them', () => {
    for (const url of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::1]:8080/', 'http://[::ffff:127.0.0.1]/', 'https://169.254.169.254/latest/meta-data/', 'http://0/']) {
      expect(refused(url), url).toMatch(/refused to fetch/);
    }
  });

  it('refuses localhost names, other schemes and URLs with credentials', () => {
    expect(refused('http://localhost:3000/')).toMatch(/loopback name/);
    expect(refused('http://LOCALHOST./')).toMatch(/loopback name/);
    expect(refused('http://pods.localhost/')).toMatch(/loopback name/);
    expect(refused('file:///etc/passwd')).toMatch(/only http and https/);
    expect(refused('ftp://example.org/')).toMatch(/only http and https/);
    expect(refused('https://user:pass@example.org/')).toMatch(/credentials/);
  });

  it('lets public literal addresses and host names pass (names are checked again once resolved)', () => {
    expect(refused('https://8.8.8.8/')).toBeNull();
    expect(refused('https://idp.example.org/.well-known/openid-configuration')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { addressKey, SocketBudget, socketLimitsOf } from '../../src/sockets/budget.ts';

const ticketOf = (admission: ReturnType<SocketBudget['admit']>) => {
  if ('refuse' in admission) throw new Error(`refused with ${admission.refuse.status}`);
  return admission.ticket;
};

describe('the socket budget', () => {
  it('refuses an address past its share with a 429 problem, and takes it again once one closes', async () => {
    const budget = new SocketBudget({ perAddress: 2, total: 100 });
    const first = ticketOf(budget.admit('192.0.2.1'));
    ticketOf(budget.admit('192.0.2.1'));
    const refused = budget.admit('192.0.2.1');
    expect('refuse' in refused && refused.refuse.status).toBe(429);
    const problem = 'refuse' in refused ? await refused.refuse.json() : null;
    expect(problem).toMatchObject({ type: 'urn:svc:problem:too-many-sockets', status: 429, limit: 2 });
    expect('refuse' in refused && refused.refuse.headers.get('content-type')).toBe('application/problem+json');
    // Other addresses have their own share.
    ticketOf(budget.admit('192.0.2.2'));
    first.release();
    first.release();
    expect(budget.openFrom('192.0.2.1')).toBe(1);
    ticketOf(budget.admit('192.0.2.1'));
    expect(budget.open).toBe(3);
  });

  it('refuses everyone past the total with a 503 and Retry-After; without an address only the total applies', async () => {
    const budget = new SocketBudget({ perAddress: 1, total: 3 });
    ticketOf(budget.admit(undefined));
    ticketOf(budget.admit(undefined));
    ticketOf(budget.admit('198.51.100.7'));
    const refused = budget.admit('203.0.113.9');
    expect('refuse' in refused && refused.refuse.status).toBe(503);
    expect('refuse' in refused && refused.refuse.headers.get('retry-after')).toBe('30');
    expect('refuse' in refused && (await refused.refuse.json()).type).toBe('urn:svc:problem:socket-capacity');
  });

  it('counts nothing against a limit of 0', () => {
    const budget = new SocketBudget({ perAddress: 0, total: 0 });
    for (let i = 0; i < 500; i++) ticketOf(budget.admit('192.0.2.1'));
    expect(budget.open).toBe(500);
  });

  it('counts an IPv6 address by its /64 and an IPv4-mapped address as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    const budget = new SocketBudget({ perAddress: 2, total: 100 });
    ticketOf(budget.admit('2001:db8:1:2::1'));
    ticketOf(budget.admit('2001:db8:1:2::2'));
    expect('refuse' in budget.admit('2001:db8:1:2:ffff::3')).toBe(true);
    ticketOf(budget.admit('2001:db8:1:3::1'));
  });

  it('keeps the total to half the file descriptors the process may open, and says so', () => {
    expect(socketLimitsOf({ maxSocketsPerAddress: 32, maxSockets: 10_000 }, undefined)).toEqual({ limits: { perAddress: 32, total: 10_000 } });
    expect(socketLimitsOf({ maxSocketsPerAddress: 32, maxSockets: 10_000 }, 1_048_576)).toEqual({ limits: { perAddress: 32, total: 10_000 } });
    const lowered = socketLimitsOf({ maxSocketsPerAddress: 32, maxSockets: 10_000 }, 1500);
    expect(lowered.limits).toEqual({ perAddress: 32, total: 750 });
    expect(lowered.notice).toContain('at most 750 open at once, half of the 1500 file descriptors');
    expect(socketLimitsOf({ maxSocketsPerAddress: 32, maxSockets: 0 }, 1024).limits.total).toBe(512);
  });
});

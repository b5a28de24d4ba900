import assert from 'node:assert/strict';
import { createDomainCheck, type DnsLookups } from '../../src/auth/emailDomain.ts';

/** What the fake DNS answers for a name: records, "no such name", or a resolver failure. */
type Behaviour = 'exists' | 'mx-only' | 'a-only' | 'nxdomain' | 'nodata' | 'timeout' | 'servfail' | 'hang';

const dnsError = (code: string) => Object.assign(new Error(code), { code });

/** The far side of the network, faked: records per name, and a log of every question asked. */
function fakeDns(names: Record<string, Behaviour>, fallback: Behaviour = 'nxdomain') {
  const asked: string[] = [];
  const answer = (kind: string, host: string): Promise<unknown[]> => {
    asked.push(`${kind} ${host}`);
    switch (names[host] ?? fallback) {
      case 'exists':
        return Promise.resolve([{}]);
      case 'mx-only':
        return kind === 'mx' ? Promise.resolve([{ exchange: 'mx.' + host, priority: 10 }]) : Promise.reject(dnsError('ENODATA'));
      case 'a-only':
        return kind === 'a' ? Promise.resolve(['192.0.2.1']) : Promise.reject(dnsError('ENODATA'));
      case 'nxdomain':
        return Promise.reject(dnsError('ENOTFOUND'));
      case 'nodata':
        return Promise.reject(dnsError('ENODATA'));
      case 'timeout':
        return Promise.reject(dnsError('ETIMEOUT'));
      case 'servfail':
        return Promise.reject(dnsError('ESERVFAIL'));
      case 'hang':
        return new Promise(() => {});
    }
  };
  const resolver: DnsLookups = {
    resolveMx: (h) => answer('mx', h),
    resolve4: (h) => answer('a', h),
    resolve6: (h) => answer('aaaa', h),
  };
  return { resolver, asked };
}

const quietLog = () => {
  const warnings: unknown[] = [];
  return { log: { warn: (obj: unknown) => void warnings.push(obj) } as never, warnings };
};

describe('email domain check', () => {
  it('accepts a domain with MX records', async () => {
    const { resolver } = fakeDns({ 'mail.example': 'mx-only' });
    assert.equal(await createDomainCheck({ resolver })('mail.example'), 'exists');
  });

  it('accepts a domain with only an address record (implicit MX)', async () => {
    const { resolver } = fakeDns({ 'web.example': 'a-only' });
    assert.equal(await createDomainCheck({ resolver })('web.example'), 'exists');
  });

  it('refuses a domain that does not exist when the resolver resolves the canary', async () => {
    const { resolver, asked } = fakeDns({ 'example.com': 'exists', 'nope.example': 'nxdomain' });
    assert.equal(await createDomainCheck({ resolver })('nope.example'), 'missing');
    assert.ok(asked.includes('mx example.com'), 'the canary was consulted');
  });

  it('refuses a domain that exists without any mail or address records', async () => {
    const { resolver } = fakeDns({ 'example.com': 'exists', 'empty.example': 'nodata' });
    assert.equal(await createDomainCheck({ resolver })('empty.example'), 'missing');
  });

  it('allows the address, and logs, when the resolver times out', async () => {
    const { resolver } = fakeDns({ 'example.com': 'exists', 'slow.example': 'timeout' });
    const { log, warnings } = quietLog();
    assert.equal(await createDomainCheck({ resolver, log })('slow.example'), 'unknown');
    assert.equal(warnings.length, 1);
  });

  it('allows the address when the resolver fails (SERVFAIL)', async () => {
    const { resolver } = fakeDns({ 'example.com': 'exists', 'broken.example': 'servfail' });
    assert.equal(await createDomainCheck({ resolver, log: quietLog().log })('broken.example'), 'unknown');
  });

  it('gives up after its timeout when DNS does not answer at all', async () => {
    const { resolver } = fakeDns({ 'example.com': 'exists', 'silent.example': 'hang' });
    const started = Date.now();
    assert.equal(await createDomainCheck({ resolver, timeoutMs: 50, log: quietLog().log })('silent.example'), 'unknown');
    assert.ok(Date.now() - started < 1000);
  });

  it('allows the address, and logs, when the resolver denies even the canary (offline sandbox)', async () => {
    const { resolver } = fakeDns({}, 'nxdomain');
    const { log, warnings } = quietLog();
    assert.equal(await createDomainCheck({ resolver, log })('nope.example'), 'unknown');
    assert.equal(warnings.length, 1);
  });

  it('asks the canary at most once per minute', async () => {
    const { resolver, asked } = fakeDns({ 'example.com': 'exists' });
    let now = 1_000_000;
    const check = createDomainCheck({ resolver, now: () => now });
    await check('one.example');
    await check('two.example');
    now += 30_000;
    await check('three.example');
    assert.equal(asked.filter((q) => q === 'mx example.com').length, 1);
    now += 31_000;
    await check('four.example');
    assert.equal(asked.filter((q) => q === 'mx example.com').length, 2);
  });

  it('remembers a verdict for a minute', async () => {
    const { resolver, asked } = fakeDns({ 'example.com': 'exists', 'mail.example': 'mx-only' });
    let now = 1_000_000;
    const check = createDomainCheck({ resolver, now: () => now });
    await check('mail.example');
    await check('MAIL.example');
    assert.equal(asked.filter((q) => q === 'mx mail.example').length, 1);
    now += 61_000;
    await check('mail.example');
    assert.equal(asked.filter((q) => q === 'mx mail.example').length, 2);
  });

  it('refuses the reserved .invalid TLD without any lookup', async () => {
    const { resolver, asked } = fakeDns({}, 'exists');
    const check = createDomainCheck({ resolver });
    assert.equal(await check('anything.invalid'), 'missing');
    assert.equal(await check('Mail.INVALID.'), 'missing');
    assert.deepEqual(asked, []);
  });
});

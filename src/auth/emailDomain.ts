import { withTimeout } from '../time.ts';
import { Resolver } from 'node:dns/promises';
import type { Logger } from '../logger.ts';

/** The part of node:dns the check uses; tests pass a fake far side of the network. */
export type DnsLookups = {
  resolveMx: (host: string) => Promise<unknown[]>;
  resolve4: (host: string) => Promise<unknown[]>;
  resolve6: (host: string) => Promise<unknown[]>;
};

/** exists: mail can be routed; missing: definitely no such domain; unknown: DNS could not tell. */
export type DomainVerdict = 'exists' | 'missing' | 'unknown';
export type DomainCheck = (domain: string) => Promise<DomainVerdict>;

export type DomainCheckOptions = {
  resolver?: DnsLookups;
  timeoutMs?: number;
  /** A domain that certainly exists: if it "does not exist" either, the resolver is lying. */
  canary?: string;
  /** How long a verdict (and the canary's) is kept. */
  cacheTtlMs?: number;
  log?: Pick<Logger, 'warn'>;
  now?: () => number;
};

type Answer = 'found' | 'none' | 'failed';
// The only errors that mean "this name has no such records"; everything else is a resolver failure.
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * "Domain must exist" (DESIGN 2.2): MX, then A/AAAA (RFC 5321's implicit MX), within one timeout.
 * Only a definite "no such domain" refuses an address; a resolver that fails or times out lets it
 * through, because refusing sign-ups whenever DNS is down would be worse than one bad address.
 * Some resolvers (sandboxes, captive portals) answer NXDOMAIN for every name; a canary domain,
 * checked at most once per `cacheTtlMs`, tells those apart from a real "no such domain".
 */
export function createDomainCheck(o: DomainCheckOptions = {}): DomainCheck {
  const timeoutMs = o.timeoutMs ?? 2000;
  const canary = o.canary ?? 'example.com';
  const cacheTtlMs = o.cacheTtlMs ?? 60_000;
  const now = o.now ?? Date.now;
  const resolver = o.resolver ?? new Resolver({ timeout: timeoutMs, tries: 1 });
  let canaryCache: { at: number; healthy: Promise<boolean> } | undefined;
  // Most sign-ups share a few big domains, and a resolver that is down would cost every sign-up
  // the full timeout: remember verdicts for a while (bounded, so junk domains cannot grow it).
  const verdicts = new Map<string, { at: number; verdict: Promise<DomainVerdict> }>();
  const MAX_CACHED = 10_000;

  async function ask(kind: keyof DnsLookups, host: string): Promise<Answer> {
    try {
      return (await resolver[kind](host)).length > 0 ? 'found' : 'none';
    } catch (error) {
      return NO_SUCH_NAME.has((error as { code?: string })?.code ?? '') ? 'none' : 'failed';
    }
  }

  async function lookup(host: string): Promise<Answer> {
    const mx = await ask('resolveMx', host);
    if (mx === 'found') return 'found';
    const addresses = await Promise.all([ask('resolve4', host), ask('resolve6', host)]);
    if (addresses.includes('found')) return 'found';
    return mx === 'none' && addresses.every((a) => a === 'none') ? 'none' : 'failed';
  }

  const lookupWithin = (host: string) => withTimeout(lookup(host), timeoutMs, () => 'failed' as const);

  function resolverTrustworthy(): Promise<boolean> {
    if (!canaryCache || now() - canaryCache.at >= cacheTtlMs) {
      canaryCache = { at: now(), healthy: lookupWithin(canary).then((a) => a === 'found') };
    }
    return canaryCache.healthy;
  }

  async function judge(domain: string): Promise<DomainVerdict> {
    const answer = await lookupWithin(domain);
    if (answer === 'found') return 'exists';
    if (answer === 'failed') {
      o.log?.warn({ domain }, 'email domain check: resolver failed, address allowed');
      return 'unknown';
    }
    if (await resolverTrustworthy()) return 'missing';
    o.log?.warn({ domain, canary }, 'email domain check: resolver denies even the canary domain, address allowed');
    return 'unknown';
  }

  return function checkDomain(rawDomain) {
    const domain = rawDomain.toLowerCase().replace(/\.$/, '');
    // RFC 2606 reserves .invalid for names that must never resolve: no need to ask.
    if (domain === 'invalid' || domain.endsWith('.invalid')) return Promise.resolve('missing');
    const cached = verdicts.get(domain);
    if (cached && now() - cached.at < cacheTtlMs) return cached.verdict;
    if (verdicts.size >= MAX_CACHED) verdicts.clear();
    const verdict = judge(domain);
    verdicts.set(domain, { at: now(), verdict });
    return verdict;
  };
}


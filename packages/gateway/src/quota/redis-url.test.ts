import { describe, expect, it } from 'vitest';
import { redactRedisUrl, redisErrorForLog, redisUrlSecrets } from './redis-url.ts';

const SECRET = 'pa55-word';

describe('redactRedisUrl: every credential form ioredis reads is hidden', () => {
  it.each([
    [`redis://:${SECRET}@cache:6379`, 'redis://:***@cache:6379'],
    [`redis://app:${SECRET}@cache:6379/2`, 'redis://***:***@cache:6379/2'],
    [`redis://${SECRET}@cache:6379`, 'redis://***@cache:6379'],
    [`rediss://cache:6380/?password=${SECRET}&db=3`, 'rediss://cache:6380/?password=***&db=3'],
    [`redis://cache/?username=app&sentinelPassword=${SECRET}&family=6`, 'redis://cache/?username=***&sentinelPassword=***&family=6'],
    [`cache:6379?password=${SECRET}`, 'redis://cache:6379?password=***'],
    [`//cache:6379?password=${SECRET}`, 'redis://cache:6379?password=***'],
    [`/run/redis.sock?password=${SECRET}`, '/run/redis.sock?password=***'],
    [`redis://[::1]:6379/?password=${encodeURIComponent('p@ss&word')}`, 'redis://[::1]:6379/?password=***'],
    ['redis://cache:6379', 'redis://cache:6379'],
  ])('%s → %s', (url, shown) => {
    expect(redactRedisUrl(url)).toBe(shown);
  });

  it('finds the decoded secrets, to scrub them from error messages', () => {
    const secrets = redisUrlSecrets(`redis://app:${encodeURIComponent('p@ss word')}@cache/?password=${SECRET}&db=1`);
    expect(secrets).toEqual(expect.arrayContaining(['p@ss word', SECRET]));
    expect(secrets).not.toContain('1');
    const error = Object.assign(new Error(`AUTH failed for p@ss word and ${SECRET}`), { command: { name: 'auth', args: ['app', 'p@ss word'] } });
    const logged = redisErrorForLog(error, secrets);
    expect(JSON.stringify(logged)).not.toContain('p@ss word');
    expect(JSON.stringify(logged)).not.toContain(SECRET);
    expect(logged).toEqual({ type: 'Error', message: 'AUTH failed for *** and ***' });
  });
});

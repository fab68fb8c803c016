import { describe, expect, it } from 'vitest';
import { isNormalPath, targetPath } from './request-path.ts';

describe('targetPath', () => {
  it.each([
    ['/v1/games?x=/../', '/v1/games'],
    ['/metrics#/../x', '/metrics'],
    ['/a#b?c', '/a'],
    ['http://host:80/x/../metrics?q', '/x/../metrics'],
    ['HTTPS://host', ''],
    ['*', '*'],
  ])('%s → %s', (target, path) => expect(targetPath(target)).toBe(path));
});

describe('isNormalPath', () => {
  it.each(['/', '/v1/games', '/v1/games/', '/docs/swagger-ui.css', '/v1/games/digimon/cards/...', '/a/.b/c.', '/x/%2e%2e%2e', '/%252e/x', '/%6detrics', ''])('%s is normal', (path) => expect(isNormalPath(path)).toBe(true));
  it.each(['/.', '/..', '/./x', '/x/..', '/%2e', '/%2E%2e/x', '/x/.%2E', '/x/%2e./y', '/a%2fb', '/a%2Fb', '//x', '/x//', '/x//y'])('%s is not', (path) => expect(isNormalPath(path)).toBe(false));
});

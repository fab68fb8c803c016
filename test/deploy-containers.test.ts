/**
 * The container files agree with the rest of what ships, without running a container (that is
 * test/containers/compose.container.ts, outside npm test): compose's backends.vcl is the shipped
 * one but for where the gateways are, every file compose.yaml mounts exists, and the port and the
 * stop grace period the image and compose.yaml give are the gateway's own defaults and above its
 * shutdown timeout.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { ROOT } from './helpers/readme-guide.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** A VCL file without its leading comment block (each file says what it is there). */
const body = (vcl: string) => vcl.replace(/^(#.*\n)+\n?/, '');

describe('compose.yaml and Containerfile', () => {
  it("deploy/compose/backends.vcl is the shipped backends.vcl with the gateways at their service names", () => {
    const shipped = body(read('deploy/varnish/backends.vcl'));
    const compose = body(read('deploy/compose/backends.vcl'));
    const expected = shipped
      .replace(/(backend gateway_8787 \{\s*\.host = )"127\.0\.0\.1";(\s*\.port = )"8787";/, `$1"gateway-1";$2"${OPERATOR_DEFAULTS.port}";`)
      .replace(/(backend gateway_8788 \{\s*\.host = )"127\.0\.0\.1";(\s*\.port = )"8788";/, `$1"gateway-2";$2"${OPERATOR_DEFAULTS.port}";`);
    expect(expected).not.toBe(shipped); // the shipped file still has the blocks replaced here
    expect(compose).toBe(expected);
  });

  it('every file compose.yaml mounts or builds from exists', () => {
    const paths = [...read('compose.yaml').matchAll(/^\s*- \.\/(\S+?):/gm)].map((m) => m[1]!);
    expect(paths).toEqual(expect.arrayContaining(['deploy/varnish/snapdeck.vcl', 'deploy/compose/backends.vcl', 'deploy/compose/varnish.sh']));
    for (const path of [...paths, 'Containerfile', '.dockerignore']) expect(existsSync(join(ROOT, path)), path).toBe(true);
  });

  it("the image listens on the gateway's default port, and every stop grace period exceeds its shutdown timeout", () => {
    const containerfile = read('Containerfile');
    expect(containerfile).toMatch(new RegExp(`SNAPDECK_PORT=${OPERATOR_DEFAULTS.port}\\b`));
    expect(containerfile).toMatch(new RegExp(`^EXPOSE ${OPERATOR_DEFAULTS.port}$`, 'm'));
    const compose = read('compose.yaml');
    // `- 127.0.0.1:${SNAPDECK_GATEWAY_1_PORT:-8787}:8787`: the port inside is the image's.
    const inside = [...compose.matchAll(/^\s*- 127\.0\.0\.1:\$\{SNAPDECK_GATEWAY_\d_PORT:-\d+\}:(\d+)$/gm)].map((m) => Number(m[1]));
    expect(inside).toEqual([OPERATOR_DEFAULTS.port, OPERATOR_DEFAULTS.port]);
    const graces = [...compose.matchAll(/stop_grace_period: (\d+)s/g)].map((m) => Number(m[1]));
    expect(graces.length).toBeGreaterThan(0);
    for (const grace of graces) expect(grace).toBeGreaterThan(OPERATOR_DEFAULTS.shutdownTimeoutSeconds);
  });
});

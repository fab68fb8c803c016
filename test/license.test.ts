/**
 * One license, said the same everywhere (decisions.md: MIT for the repository and every package in
 * it, the client included; the OpenAPI document's `info.license` says the same): every package.json,
 * the LICENSE files at the root and in the client package (which the packed tarball ships), and the
 * document the gateway serves, strict or not.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@snapdeck/contract';

const ROOT = join(import.meta.dirname, '..');

const MIT_GRANT = 'Permission is hereby granted, free of charge, to any person obtaining a copy';
const MIT_WARRANTY = 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND';

describe('the license', () => {
  it('every package.json, the root and each of packages/*, says MIT', async () => {
    const packages = (await readdir(join(ROOT, 'packages'), { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => join('packages', entry.name));
    expect(packages.length).toBeGreaterThanOrEqual(6);
    for (const dir of ['.', ...packages]) {
      const manifest = JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8')) as { license?: string };
      expect(manifest.license, `${dir}/package.json`).toBe('MIT');
    }
  });

  it('LICENSE at the root and in packages/client is the MIT text, with the same copyright line', async () => {
    const root = await readFile(join(ROOT, 'LICENSE'), 'utf8');
    const client = await readFile(join(ROOT, 'packages', 'client', 'LICENSE'), 'utf8');
    for (const [name, text] of [['LICENSE', root], ['packages/client/LICENSE', client]] as const) {
      expect(text, name).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the snapdeck authors\n/);
      expect(text, name).toContain(MIT_GRANT);
      expect(text, name).toContain(MIT_WARRANTY);
      expect(text, name).not.toMatch(/UNLICENSED|all rights reserved/i);
    }
    expect(client).toBe(root);
  });

  it("the OpenAPI document's info.license is MIT, in the published and the strict document", () => {
    for (const strict of [false, true]) {
      const info = buildOpenApiDocument({ strict }).info as { license?: unknown };
      expect(info.license, `strict: ${strict}`).toEqual({ name: 'MIT', identifier: 'MIT' });
    }
  });
});

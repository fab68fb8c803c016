#!/usr/bin/env node
// The sources are TypeScript run as they are (no build step): bundle.mjs bundles them on first use
// (kept until a source changes); where no bundle can be made, ts-loader.mjs compiles each on load.
import { register } from 'node:module';
import { bundledEntry } from './bundle.mjs';

process.setSourceMapsEnabled(true); // stack traces name the .ts files and lines
const entry = await bundledEntry();
if (entry) {
  await import(entry);
} else {
  register('./ts-loader.mjs', import.meta.url);
  await import('../src/main.ts');
}

#!/usr/bin/env node
// The sources are TypeScript run as they are (no build step): ts-loader.mjs compiles them on load.
import { register } from 'node:module';

process.setSourceMapsEnabled(true); // stack traces name the .ts files and lines
register('./ts-loader.mjs', import.meta.url);
await import('../src/main.ts');

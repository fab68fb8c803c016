#!/usr/bin/env node
// The sources are TypeScript run as they are (no build step): tsx registers the loader first.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');

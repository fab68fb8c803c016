/** The CLI in-process, for tests and tools: `runCli(args, { from: 'user', output })` is what bin/snapdeck.js runs. */
export { createProgram, runCli, type CliOutput } from './program.ts';

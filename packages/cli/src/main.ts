import { runCli } from './program.ts';

// The only place the CLI exits (commands throw; program.ts reports). Explicit, so that a handle
// left open by a library cannot keep a finished command alive.
process.exit(await runCli(process.argv));

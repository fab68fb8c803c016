import { runCli } from './program.ts';

// The AWS SDK warns, in 7 lines on stderr, on every run under Node < 22 that its releases after
// January 2027 will need Node 22; the README ("Supported Node.js versions") says it once instead.
// This variable is the SDK's documented switch; a value the operator set is kept.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ||= 'true';

// The only place the CLI exits (commands throw; program.ts reports). Explicit, so that a handle
// left open by a library cannot keep a finished command alive.
process.exit(await runCli(process.argv));

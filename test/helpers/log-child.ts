/**
 * A process that logs through the gateway's log (createLog) and ends without flushing it: `count`
 * info lines numbered 0…count-1 (handed to the log's line sink, as the access log's are, when
 * `later` is given), then, when `warn` is given, a warning 150 ms later; then it ends as `end` says:
 * `exit` (process.exit at once), `return` (the event loop runs dry) or `throw` (an uncaught
 * exception). Usage: tsx log-child.ts COUNT exit|return|throw [warn] [later]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLog, lineSink } from '@snapdeck/gateway';

const [countText, end, ...flags] = process.argv.slice(2);
const log = createLog('info');
// The line log.info({ n }, 'line') writes, formatted later.
const later = lineSink(log, (fields: { n: number }, time, bindings) => `{"level":30,"time":${time}${bindings},"n":${fields.n},"msg":"line"}\n`)!;
for (let i = 0; i < Number(countText); i++) {
  if (flags.includes('later')) later({ n: i });
  else log.info({ n: i }, 'line');
}
if (flags.includes('warn')) {
  await sleep(150);
  log.warn('a warning');
}
if (end === 'exit') process.exit(0);
if (end === 'throw') throw new Error('thrown on purpose');

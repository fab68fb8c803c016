/**
 * A process that logs through the gateway's log (createLog) and exits without flushing it:
 * `count` info lines numbered 0…count-1, then a warning when `warn` is given, then how it ends:
 * `exit` (process.exit at once), `return` (the event loop runs dry) or `throw` (an uncaught
 * exception). Usage: tsx log-child.ts COUNT exit|return|throw [warn]
 */
import { createLog } from '@snapdeck/gateway';

const [countText, end, warn] = process.argv.slice(2);
const log = createLog('info');
for (let i = 0; i < Number(countText); i++) log.info({ n: i }, 'line');
if (warn === 'warn') log.warn('a warning');
if (end === 'exit') process.exit(0);
if (end === 'throw') throw new Error('thrown on purpose');

import cliProgress, { type Options, type Params } from 'cli-progress';

const LABEL_WIDTH = 28;
const BAR_WIDTH = 30;

/**
 * `gundam pages        [##########....................] 120/360`, or `4100 lines` while the
 * total is not known yet (total 0).
 */
function formatLine(options: Options, params: Params, payload: { label?: string }): string {
  const label = (payload.label ?? '').padEnd(LABEL_WIDTH);
  if (params.total === 0) return `${label} ${params.value} lines`;
  return `${label} [${cliProgress.Format.BarFormat(params.progress, options)}] ${params.value}/${params.total}`;
}

/**
 * Progress for long CLI work: a self-updating line on a terminal, drawn by cli-progress (throttled
 * redraws, cut to the terminal's width); nothing on a pipe or in CI, where the command prints one
 * summary line per item instead, so that a log reads as lines, with no carriage returns or escape
 * codes. `note` prints a line of its own, above the bar.
 */
export function progressReporter(stream: NodeJS.WriteStream) {
  // cli-progress draws nothing on a stream that is not a terminal (its noTTYOutput is off); CI
  // terminals that claim to be TTYs are kept quiet here as well.
  const bar =
    stream.isTTY === true && !process.env.CI
      ? new cliProgress.SingleBar({
          stream,
          format: formatLine,
          fps: 12.5,
          barsize: BAR_WIDTH,
          barCompleteChar: '#',
          barIncompleteChar: '.',
          clearOnComplete: true,
          // Leave the terminal's modes alone (a killed build must not leave wrapping off): lines
          // are cut to the width instead.
          linewrap: true,
        })
      : null;
  let drawing = false;
  const clear = () => {
    if (drawing) bar?.stop();
    drawing = false;
  };
  return {
    update(label: string, done: number, total: number) {
      if (!bar) return;
      if (!drawing) {
        bar.start(total, done, { label });
        drawing = true;
        return;
      }
      bar.setTotal(total);
      bar.update(done, { label });
    },
    note(message: string) {
      clear();
      stream.write(`${message}\n`);
    },
    done() {
      clear();
    },
  };
}

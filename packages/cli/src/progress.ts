/**
 * Progress for long CLI work: a self-updating line on a terminal, nothing on a pipe or in CI
 * (where the command prints one summary line per item instead).
 */
export function progressReporter(stream: NodeJS.WriteStream) {
  const live = stream.isTTY === true && !process.env.CI;
  let lastDraw = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) stream.write('\r\x1b[2K');
    drawn = false;
  };
  return {
    update(label: string, done: number, total: number) {
      if (!live) return;
      const now = Date.now();
      if (now - lastDraw < 80 && done !== total) return;
      lastDraw = now;
      const width = 30;
      const bar = total > 0 ? `[${'#'.repeat(Math.round((done / total) * width)).padEnd(width, '.')}] ${done}/${total}` : `${done} lines`;
      stream.write(`\r\x1b[2K${label.padEnd(28)} ${bar}`);
      drawn = true;
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

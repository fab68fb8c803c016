// Preloaded (NODE_OPTIONS=--import) into a CLI child by tests that compare its output byte for
// byte with a build made in the test process under vi.setSystemTime: the clock stands still at
// SNAPDECK_TEST_CLOCK_AT (ms since the epoch), so version ids and timestamps are the same in both.
const at = Number(process.env.SNAPDECK_TEST_CLOCK_AT);
if (!Number.isFinite(at)) throw new Error('fixed-clock.mjs needs SNAPDECK_TEST_CLOCK_AT');
const RealDate = Date;
globalThis.Date = class FixedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(at);
    else super(...args);
  }
  static now() {
    return at;
  }
};

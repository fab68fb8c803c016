// Preloaded (node --import) into a gateway child process by tests that need its quota window to
// end soon: Date.now() runs SNAPDECK_TEST_CLOCK_OFFSET_MS ahead (or behind), as on a host whose
// clock reads another time. Nothing else of the process changes.
const offset = Number(process.env.SNAPDECK_TEST_CLOCK_OFFSET_MS ?? 0);
const realNow = Date.now;
Date.now = () => realNow() + offset;

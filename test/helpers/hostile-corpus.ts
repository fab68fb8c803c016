/**
 * The hostile-input corpus: the strings an attacker tries first, in one place, for the
 * hand-written tests and the generated ones (test/generated/) alike.
 *
 * - property names: every own property name of Object.prototype (`__proto__` among them): a string
 *   used as a key of a plain object finds these even when nothing was stored under them;
 * - control characters and line separators (decisions.md "Cards": U+0000–U+001F, U+007F–U+009F,
 *   U+2028, U+2029): in a text export they would forge lines;
 * - odd Unicode: lone surrogates, a BOM, zero-width and bidi controls, combining marks, astral
 *   characters, full-width digits;
 * - very long strings.
 */
import fc from 'fast-check';

/** Object.prototype's own property names, `__proto__` included (it is one of them). */
export const PROPERTY_NAMES: readonly string[] = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];

/** Every control character decisions.md names, one string each. */
export const CONTROL_CHARACTERS: readonly string[] = [
  ...Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  '\u2028',
  '\u2029',
];

/** A line break in every spelling a reader might honour. */
export const LINE_BREAKS: readonly string[] = ['\n', '\r', '\r\n', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];

/** Text that would forge a header and a card line in a text export if printed as it is. */
export const FORGED_LINES = 'Evil\n// Sideboard\n4 Fake (GD01-999)';

/** Unicode that is legal but odd; none of it is a control character. */
export const ODD_UNICODE: readonly string[] = [
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  '\ufeff', // BOM / zero-width no-break space
  '\u200b\u200c\u200d', // zero-width space, non-joiner, joiner
  '\u202e\u2066', // right-to-left override, left-to-right isolate
  'e\u0301\u0301\u0301', // combining marks
  '😀🃏', // astral characters
  '１２３', // full-width digits
  'İı', // dotted and dotless i (case mapping changes length)
];

/** A string `length` characters long. */
export const long = (length: number, unit = 'x'): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** Whether a string holds a control character decisions.md names. */
export const hasControlCharacter = (text: string): boolean => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text);

/** Every hostile string of the corpus. */
export const HOSTILE_STRINGS: readonly string[] = [
  ...PROPERTY_NAMES,
  ...CONTROL_CHARACTERS.map((c) => `a${c}b`),
  ...LINE_BREAKS.map((b) => `x${b}// Sideboard`),
  FORGED_LINES,
  ...ODD_UNICODE,
  '',
  ' ',
  long(5000),
  long(70_000, '😀'),
];

/** fast-check: a hostile string from the corpus, or one built of its pieces. */
export const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.constantFrom(...PROPERTY_NAMES),
    fc.array(fc.constantFrom(...CONTROL_CHARACTERS, ...LINE_BREAKS, ...ODD_UNICODE, 'a', '-', '/', ' '), { minLength: 1, maxLength: 12 }).map((parts) => parts.join('')),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

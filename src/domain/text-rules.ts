// The rules of free text that names or identifies something (a merchant_tx_id, a top-up reference,
// a merchant's name): no character that is invisible or moves text around when shown, and for an
// identifier no whitespace at either end. Such characters make two identifiers that look the same
// differ (`A1` and `A1\u200B`), split a log or CSV line (CR, LF, U+2028), or reorder what a
// dashboard shows (the bidirectional controls U+202A–U+202E, U+2066–U+2069).
//
// Refused: Unicode general categories Cc (controls: U+0000–U+001F, U+007F–U+009F, tab, CR and LF
// among them) and Cf (format: soft hyphen, zero-width space/joiners U+200B–U+200D, marks U+200E–U+200F,
// bidirectional embeddings/overrides/isolates, U+2060–U+2064, U+FEFF…), and the line and paragraph
// separators U+2028 and U+2029. Every other character, letters of any script, spaces inside, symbols
// and emoji, is kept.

const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const EDGE_SPACE = /^\s|\s$/u;

/** What kind of text a field holds: an identifier (no edge whitespace) or a line of text (a name). */
export type TextKind = 'identifier' | 'line';

export interface TextProblem {
  /** The rule broken: `control_character`, or `edge_whitespace` for an identifier. */
  rule: 'control_character' | 'edge_whitespace';
  /** What is wrong, to follow the field's name: "must not contain …". */
  message: string;
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** The first broken rule of `text` for its kind, or undefined when it is acceptable. */
export function textProblem(text: string, kind: TextKind): TextProblem | undefined {
  const m = INVISIBLE.exec(text);
  if (m) {
    const position = [...text.slice(0, m.index)].length + 1;
    return {
      rule: 'control_character',
      message: `must not contain control or invisible formatting characters (Unicode Cc, Cf, U+2028, U+2029): ${hex(m[0].codePointAt(0)!)} at character ${position}`,
    };
  }
  if (kind === 'identifier' && EDGE_SPACE.test(text)) {
    return { rule: 'edge_whitespace', message: 'must not begin or end with whitespace' };
  }
  return undefined;
}

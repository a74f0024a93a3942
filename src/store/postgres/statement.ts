/** A statement run often (a server-side function's call): its text and the name it is prepared under, made once. */
export interface Statement {
  readonly text: string;
  readonly name: string;
}

/** A statement named after its text, so a server connection holding the name holds the same statement. */
export function statementOf(text: string): Statement {
  return { text, name: `lanes_${hashName(text)}` };
}

/** A short stable name for a statement's text (FNV-1a, 32 bits, in base 36). */
function hashName(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}

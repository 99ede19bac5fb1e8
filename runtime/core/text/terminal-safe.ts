// Text an operator reads (CLI output, logs, dead-letter reasons, reports) often carries bytes from outside: a queue
// message's field names, a customer id, an error's text. A terminal obeys control characters in them: ESC and C1
// sequences can set the window title, clear the screen, plant a hyperlink or hide lines; bidi overrides reorder what
// is shown. One function escapes them all as \uXXXX (the JSON spelling, so JSON text stays valid JSON).
// Backslashes are left alone, so escaping twice changes nothing.

/** C0 controls, DEL, C1 controls, bidi marks, embeddings, overrides and isolates, and the Unicode line separators. */
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, with line feeds kept (a multi-line report whose lines are ours). */
const unsafeButNewline = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export interface TerminalSafeOptions {
  /** Keep line feeds (for text whose line breaks are the caller's own); default false: one line. */
  multiline?: boolean;
}

/** `text` with every control, bidi and line-separator character written as \uXXXX. */
export function terminalSafe(text: string, options: TerminalSafeOptions = {}): string {
  return text.replace(options.multiline ? unsafeButNewline : unsafe, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// Layout for the plan's text: lines kept within a terminal's width, continuation lines indented under their text,
// so a summary reads on one screen without sideways scrolling.

export const WIDTH = 120;
const LABEL_WIDTH = 13;

/**
 * Items joined into lines of at most WIDTH characters: each line starts with `first` (the first) or `rest`, the
 * separator ends every item but the last ("" when the items carry their own), and an item that fits on a fresh line
 * is never split; a longer one wraps between words.
 */
export function wrapItems(first: string, rest: string, items: readonly string[], separator = ", "): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const push = (word: string) => {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line.trimEnd());
      line = rest;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  };
  items.forEach((item, index) => {
    const piece = index < items.length - 1 ? `${item}${separator.trimEnd()}` : item;
    if (empty || line.length + 1 + piece.length <= WIDTH || rest.length + piece.length > WIDTH) {
      for (const word of piece.split(" ")) push(word);
    } else {
      lines.push(line.trimEnd());
      line = rest + piece;
      empty = false;
    }
  });
  lines.push(line.trimEnd());
  return lines;
}

/** One sentence wrapped, its continuation lines indented by two. */
export const wrap = (text: string): string[] => wrapItems("", "  ", [text]);

/** "  label        text", continuation lines aligned under the text. */
export function labelled(label: string, items: readonly string[], separator = ", "): string[] {
  return wrapItems(`  ${label.padEnd(LABEL_WIDTH)}`, " ".repeat(2 + LABEL_WIDTH), items, separator);
}

// A CSV cell a spreadsheet will not run: OWASP's advice for CSV injection. A text cell starting with = + - @ tab or
// carriage return is read as a formula, so it gets a leading single quote; every text cell is quoted (embedded quotes
// doubled), which also keeps commas and line breaks inside it. Numbers are ours and go as they are.

const formulaStart = /^[=+\-@\t\r]/;

export function csvCell(value: string | number): string {
  if (typeof value === "number") return String(value);
  const text = formulaStart.test(value) ? `'${value}` : value;
  return `"${text.replaceAll('"', '""')}"`;
}

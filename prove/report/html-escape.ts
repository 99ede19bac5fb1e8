// Text from a run (contender names, verdicts, dead-letter reasons) placed in the HTML report: escaped, so a name like
// "<script>" is shown, never run.
const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => entities[c] as string);
}

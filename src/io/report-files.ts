/**
 * The files that go with a task set or a report, and the JSON layout they are written in: where a task
 * file's build log and reports sit, and JSON laid out as the repository's formatter lays it out. Shared
 * by `tasks build`/`tasks report` (src/tasks/) and `lint tasks`/`lint report` (src/lint/), so it sits
 * below both.
 *
 * Pure: names and text only; the callers read and write the files.
 */

/** The files that go with a task file. */
export function taskSetPaths(taskFile: string): { log: string; reportMarkdown: string; reportJson: string } {
  const base = taskFile.replace(/\.jsonl$/, "");
  return { log: `${base}.build.log`, reportMarkdown: `${base}.report.md`, reportJson: `${base}.report.json` };
}

/** `FILE.md` → `FILE.json` (any other name gets `.json` appended): where `--report` puts the JSON. */
export function jsonReportPath(markdownPath: string): string {
  return markdownPath.endsWith(".md") ? `${markdownPath.slice(0, -3)}.json` : `${markdownPath}.json`;
}

/** Line width of the repository's formatter (biome.json), which also checks the committed reports. */
const JSON_LINE_WIDTH = 110;

/**
 * `value` as indented JSON laid out the way the repository's formatter (Biome) lays it out, so a
 * committed report stays formatted when rebuilt: objects one key per line, arrays of plain values on
 * one line when that line fits, otherwise one element per line. Ends with a newline.
 */
export function formatJson(value: unknown): string {
  const layout = (item: unknown, indent: string, prefix: number): string => {
    if (item === null || typeof item !== "object") return JSON.stringify(item) ?? "null";
    const inner = `${indent}  `;
    if (Array.isArray(item)) {
      if (item.length === 0) return "[]";
      if (item.every((x) => x === null || typeof x !== "object")) {
        const flat = `[${item.map((x) => JSON.stringify(x)).join(", ")}]`;
        // +1 for a trailing comma after the value.
        if (prefix + flat.length + 1 <= JSON_LINE_WIDTH) return flat;
      }
      return `[\n${item.map((x) => `${inner}${layout(x, inner, inner.length)}`).join(",\n")}\n${indent}]`;
    }
    const entries = Object.entries(item).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const lines = entries.map(([key, v]) => {
      const head = `${inner}${JSON.stringify(key)}: `;
      return `${head}${layout(v, inner, head.length)}`;
    });
    return `{\n${lines.join(",\n")}\n${indent}}`;
  };
  return `${layout(value, "", 0)}\n`;
}

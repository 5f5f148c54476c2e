/**
 * The `+kubebuilder:` namespace: names under it are ours, and an unknown one is an error, except the prefixes other
 * tools own (kubebuilder's scaffold, controller-gen's applyconfiguration, docs and informer generators), which are
 * accepted and ignored.
 */

/** The first segment of the markers this tool checks strictly: `+kubebuilder:...`. */
export const OWN_NAMESPACE = 'kubebuilder';

/** `+kubebuilder:` markers that other tools own. */
export const foreignPrefixes: readonly string[] = [
  'kubebuilder:scaffold:',
  'kubebuilder:ac:',
  'kubebuilder:docs-gen:',
  'kubebuilder:informers:',
  'kubebuilder:conversion:',
];

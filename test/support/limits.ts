/**
 * Bounds on waiting that several tests share. Each bounds how long a wait may take on a loaded two-core machine (CI,
 * or `npm run test:stress` with every core busy); none asserts speed. A bound that only one test uses sits beside it
 * with its reason, or is derived from what is tested (a lease duration, a resync period).
 */

/**
 * Starting etcd and kube-apiserver and installing CRDs: 3–5 s on an idle machine, but two suites start theirs at once
 * and each may wait for the other's CPU. vitest.config.ts's hookTimeout has the same value, for the many beforeAll
 * hooks that start a control plane and nothing else.
 */
export const CONTROL_PLANE_START_MS = 180_000;

/**
 * Building a Go peer (controller-gen, kubebuilder, a controller-runtime program) from the module proxy with a cold Go
 * build cache: several minutes; seconds once cached under ~/.cache.
 */
export const GO_BUILD_MS = 900_000;

/** A Node child process that loads the runtime (or the built CLI) and starts a manager: a second or two when idle. */
export const CHILD_START_MS = 120_000;

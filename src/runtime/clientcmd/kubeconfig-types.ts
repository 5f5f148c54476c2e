// The cluster configuration as plain data (client-go's rest.Config, with clientcmd/api's exec and impersonation
// types). Declared here, beside the loaders that build it, so that rest, which reads it at request time, imports
// clientcmd and never the other way round.

/**
 * How to reach one API server as one user: client-go's rest.Config as plain, readonly data. {@link loadKubeConfig}
 * builds one from kubeconfig files or the in-cluster service account; tests and tools may write one by hand:
 *
 * ```ts
 * const kc: KubeConfig = { server: 'https://127.0.0.1:6443', tls: { caFile: '/tmp/ca.crt' }, auth: { token: 't' } };
 * ```
 *
 * Pass it to `newClient(kc)` or `new Manager({ kubeConfig: kc })`; `kubeConfigToYaml` (@kubescaffold/runtime/clientcmd)
 * writes it back as a kubeconfig file.
 */
export interface KubeConfig {
  /** The API server's URL: `https://host:port`, optionally with a path prefix. `http://` sends no TLS material. */
  readonly server: string;
  /** The kubeconfig context this was loaded from; names the context in messages and in `kubeConfigToYaml`'s output. */
  readonly contextName?: string;
  /** The context's namespace; in-cluster, $POD_NAMESPACE or the service account's. See `currentNamespace`. */
  readonly namespace?: string;
  /** How to verify the server, and the client certificate to present to it. */
  readonly tls?: KubeConfigTLS;
  /** Who to authenticate as. */
  readonly auth?: KubeConfigAuth;
  /** An `http://`, `https://` or `socks5://` proxy to reach the server through (the cluster's proxy-url). */
  readonly proxyURL?: string;
  /**
   * Ask for uncompressed responses (the cluster's disable-compression). By default the client asks for gzip, as
   * client-go does: a large list then travels in a fraction of its bytes, for some CPU on both ends.
   */
  readonly disableCompression?: boolean;
  /**
   * Where this configuration came from, as messages name it: `kubeconfig /home/u/.kube/config`, the files of
   * $KUBECONFIG, or `in-cluster service account /var/run/secrets/kubernetes.io/serviceaccount`. Unset when built by hand.
   */
  readonly source?: string;
}

/**
 * TLS material. Files are absolute paths (loadKubeConfig resolves relative ones against their kubeconfig's directory);
 * data is PEM text. When both a file and its data are given, the data is used (the loader refuses both, as client-go).
 */
export interface KubeConfigTLS {
  /** PEM certificates of the CAs that sign the server's certificate (certificate-authority-data, decoded). */
  readonly caData?: string;
  /** A file of PEM CA certificates (certificate-authority). Read once, on the first request. */
  readonly caFile?: string;
  /** The client certificate in PEM (client-certificate-data, decoded). Needs keyData or keyFile. */
  readonly certData?: string;
  /** A file holding the client certificate (client-certificate); re-read every 5 minutes, as client-go does. */
  readonly certFile?: string;
  /** The client certificate's private key in PEM (client-key-data, decoded). */
  readonly keyData?: string;
  /** A file holding the client certificate's key (client-key); re-read with certFile. */
  readonly keyFile?: string;
  /** Do not verify the server's certificate (insecure-skip-tls-verify). Refused together with a CA, as client-go. */
  readonly insecureSkipTLSVerify?: boolean;
  /** The name to verify the server's certificate against and send as SNI (tls-server-name), instead of the host. */
  readonly serverName?: string;
}

/**
 * Credentials. At most one of token (or tokenFile) and username/password; a client certificate (in {@link KubeConfigTLS})
 * may accompany either. An exec plugin is used only when none of those is set, as in client-go.
 */
export interface KubeConfigAuth {
  /** A bearer token. With tokenFile too, the file wins and this is the fallback when it cannot be read (client-go). */
  readonly token?: string;
  /** A file holding a bearer token, re-read at most once a minute and after a 401 (a rotated service account token). */
  readonly tokenFile?: string;
  /** Basic authentication's user name. */
  readonly username?: string;
  /** Basic authentication's password. */
  readonly password?: string;
  /** A credential plugin that prints an ExecCredential (client.authentication.k8s.io). */
  readonly exec?: ExecConfig;
  /** Act as another user (the kubeconfig's `as`, `as-uid`, `as-groups`, `as-user-extra`). */
  readonly impersonate?: Impersonation;
}

/** The exec credential plugins' API versions this runtime speaks. */
export type ExecAPIVersion = 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1';

/** Whether an exec plugin may use the terminal: never, when stdin is a terminal, or always (failing without one). */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** An exec credential plugin (the kubeconfig user's `exec`), as client-go runs it. */
export interface ExecConfig {
  /** The ExecCredential version the plugin reads and writes. */
  readonly apiVersion: ExecAPIVersion;
  /** The executable: a path (resolved against the kubeconfig's directory when relative) or a name found on $PATH. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Variables added to the plugin's environment (which is otherwise this process's). */
  readonly env?: readonly ExecEnvVar[];
  /** Shown to the user when the command cannot be run, e.g. how to install it. */
  readonly installHint?: string;
  /**
   * Whether the plugin may read stdin: only then is stdin passed to it. Required for v1; v1beta1 defaults to
   * IfAvailable (client-go's defaulting).
   */
  readonly interactiveMode?: ExecInteractiveMode;
  /** Send the cluster's server and CA to the plugin in KUBERNETES_EXEC_INFO's spec.cluster. */
  readonly provideClusterInfo?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension, sent as spec.cluster.config. */
  readonly clusterConfig?: unknown;
}

/** One environment variable for an exec plugin. */
export interface ExecEnvVar {
  /** The variable's name. */
  readonly name: string;
  /** Its value. */
  readonly value: string;
}

/** Impersonation headers sent with every request. */
export interface Impersonation {
  /** The user to act as (Impersonate-User). */
  readonly user: string;
  /** Its UID (Impersonate-Uid). */
  readonly uid?: string;
  /** Its groups (Impersonate-Group). */
  readonly groups?: readonly string[];
  /** Extra fields (Impersonate-Extra-<key>). */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

// Types of dockerfile.js, for the tests that import it.
/** One instruction, with its flags (`--from=builder`) apart from its arguments. */
export interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  /** The arguments as written, after the flags. */
  text: string;
  /** The line it starts on, for messages. */
  line: number;
}
/** A stage: FROM's image, its name, and its instructions. */
export interface Stage {
  image: string;
  name?: string;
  instructions: Instruction[];
}
/** How RUN lines run: the environment they see (PATH with the image's Node first), and a bound on each. */
export interface RunOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}
/** A built stage: its filesystem (a folder), WORKDIR, USER and ENTRYPOINT, and each named stage built before it. */
export interface BuiltImage {
  root: string;
  workdir: string;
  user?: { uid: number; gid: number };
  entrypoint: string[];
  stages: Map<string, { root: string; workdir: string }>;
}
export declare function parseDockerfile(text: string, buildArgs?: Record<string, string>): Stage[];
export declare function dockerignoreFilter(text: string): (path: string) => boolean;
export declare function treeFiles(dir: string): string[];
export declare function treeSize(path: string): { bytes: number; files: number };
export declare function buildStages(stages: Stage[], context: string, scratch: string, run: RunOptions): BuiltImage;

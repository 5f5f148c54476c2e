// The finished project of the CronJob tutorial as the book publishes it (docs/tutorial/project): the files of the
// project the tutorial's steps leave, as git sees them (nothing .gitignore leaves out), less vendor/ (the packed
// kubescaffold packages of a pre-release scaffold, binary and large) and package-lock.json (pinned versions of every
// transitive dependency on the day it ran, which say nothing about the tutorial).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

const LEFT_OUT = [/^vendor\//, /^package-lock\.json$/];

/** The files of a project the tutorial made (a git repository: chapter 1 makes one), as they are published. */
export function projectFiles(projectDir) {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: projectDir,
    encoding: 'utf8',
  });
  return listed
    .split('\0')
    .filter((f) => f !== '' && !LEFT_OUT.some((p) => p.test(f)))
    .sort();
}

/** Every file below a published copy, as relative paths with '/' separators. */
export function publishedFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * A file's text as compared between a fresh run and the published copy: what changes with the day it ran, not with
 * the tutorial, is blanked out (the license header's year; the version npm picked for `npm install cron-parser`).
 */
export function comparableText(file, text) {
  let out = text.replace(/Copyright \d{4}/g, 'Copyright YEAR');
  if (file === 'package.json') out = out.replace(/("cron-parser": ")[^"]*"/, '$1*"');
  return out;
}

/** Replaces `target` with the published files of the project in `projectDir`. */
export function publishProject(projectDir, target) {
  rmSync(target, { recursive: true, force: true });
  for (const file of projectFiles(projectDir)) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(projectDir, file), join(target, file));
  }
}

/** The differences between a fresh run's project and the published copy: files missing, extra or changed. */
export function projectDifferences(projectDir, published) {
  const fresh = projectFiles(projectDir);
  const kept = publishedFiles(published);
  const differences = [
    ...fresh.filter((f) => !kept.includes(f)).map((f) => `${f}: not in the published copy`),
    ...kept.filter((f) => !fresh.includes(f)).map((f) => `${f}: in the published copy, but the steps do not make it`),
  ];
  for (const file of fresh.filter((f) => kept.includes(f))) {
    const a = comparableText(file, readFileSync(join(projectDir, file), 'utf8'));
    const b = comparableText(file, readFileSync(join(published, file), 'utf8'));
    if (a !== b) differences.push(`${file}: differs`);
  }
  return differences;
}

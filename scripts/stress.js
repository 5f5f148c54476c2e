#!/usr/bin/env node
// `npm run test:stress`: the whole suite, RUNS times in a row (default 3), while one busy-loop process per core keeps
// every core busy, as a loaded CI machine or laptop would. It prepares once (`npm run pretest`: build, lint,
// control-plane binaries) before the load starts. The busy loops run at normal priority, each ends by itself after
// HOG_MAX_MINUTES (default 90) so an interrupted run cannot leave them behind, and all are stopped at the end.
// Arguments after `--` go to vitest: `npm run test:stress -- test/runtime`.
import { spawn, spawnSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';

const runs = Number(process.env.RUNS ?? 3);
const hogMinutes = Number(process.env.HOG_MAX_MINUTES ?? 90);
const vitestArgs = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const prep = spawnSync(npm, ['run', 'pretest'], { stdio: 'inherit' });
if (prep.status !== 0) process.exit(prep.status ?? 1);

const hogs = Array.from({ length: availableParallelism() }, () =>
  spawn(process.execPath, ['-e', `const end = Date.now() + ${hogMinutes * 60_000}; while (Date.now() < end);`], {
    stdio: 'ignore',
  }),
);
const stopHogs = () => {
  for (const h of hogs) if (h.exitCode === null) h.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));
console.log(`stress: ${hogs.length} busy-loop processes, one per core; ${runs} runs of the suite`);

const results = [];
for (let i = 1; i <= runs; i++) {
  const started = performance.now();
  const code = await new Promise((resolve) => {
    const run = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...vitestArgs], { stdio: 'inherit' });
    run.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  const seconds = (performance.now() - started) / 1000;
  results.push({ run: i, code, seconds, load: loadavg()[0] });
  console.log(
    `stress: run ${i} of ${runs} ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s, load average ${loadavg()[0].toFixed(1)}`,
  );
}
stopHogs();
console.log(
  `stress: ${results.filter((r) => r.code === 0).length} of ${runs} runs passed (${results.map((r) => `${r.seconds.toFixed(0)} s`).join(', ')})`,
);
process.exit(results.every((r) => r.code === 0) ? 0 : 1);

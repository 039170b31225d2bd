import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run bench [-- name … --flag …]`: runs bench/<name>.ts, or every bench/*.ts when no name is given,
 * each in its own process so one bench's heap and timers cannot skew the next. Flags (`--quick`) go to each bench.
 */
const available = readdirSync(__dirname)
  .filter((file) => file.endsWith('.ts') && file !== path.basename(__filename))
  .map((file) => file.slice(0, -'.ts'.length))
  .sort();
const args = process.argv.slice(2);
// Names pick benches; flags (--quick …) are handed to each bench.
const requested = args.filter((arg) => !arg.startsWith('--'));
const flags = args.filter((arg) => arg.startsWith('--'));

if (available.length === 0) {
  console.log('no benchmarks yet');
  process.exit(0);
}
const unknown = requested.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')}. Available: ${available.join(', ')}.`);
  process.exit(1);
}
const names = requested.length > 0 ? requested : available;

const failed = names.filter((name) => {
  console.log(`\n== bench/${name}.ts`);
  const run = spawnSync(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, `${name}.ts`), ...flags], {
    stdio: 'inherit',
  });
  return run.status !== 0;
});
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exit(1);
}

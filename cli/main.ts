import { run } from './program';

// `warden logs | head` closes the pipe early: that ends the output, it is not a failure.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// The entry point release builds bundle: no top-level await, so it runs as CommonJS too.
void run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

import readline from 'node:readline';
import { CliError, UsageError } from './errors';

/** Prompts go to stderr so stdout stays the command's output. */
export async function askLine(question: string): Promise<string> {
  if (!process.stdin.isTTY) throw new UsageError(`${question.replace(/:\s*$/, '')} is needed: pass it as a flag when not on a terminal.`);
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return (await new Promise<string>((resolve) => rl.question(question, resolve))).trim();
  } finally {
    rl.close();
  }
}

/** Reads a secret from the terminal without echoing it; Ctrl-C aborts. */
export async function askSecret(question: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) throw new UsageError('A password is needed: use --password-stdin when not on a terminal.');
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let secret = '';
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === '\r' || char === '\n') {
            input.off('data', onData);
            resolve(secret);
            return;
          }
          if (char === '\u0003') {
            input.off('data', onData);
            reject(new CliError('Cancelled.'));
            return;
          }
          if (char === '\u007f' || char === '\b') secret = secret.slice(0, -1);
          else if (char >= ' ') secret += char;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    input.pause();
    process.stderr.write('\n');
  }
}

/** All of stdin as text (a password piped in, a script file). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs the real service as a child process (`node src/main.ts`, or as `npm start` runs it with
 * `asNpmStart`: package.json config.nodeFlags and src/main.js), and waits for its "listening"
 * log line to learn the address.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = resolve(import.meta.dirname, '../../src/main.ts');
const ENTRY = resolve(import.meta.dirname, '../../src/main.js');
const NODE_FLAGS = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    config: { nodeFlags: string };
  }
).config.nodeFlags.split(' ');

export interface RunOptions {
  /** node's flags from package.json and the entry src/main.js, as `npm start` runs it */
  asNpmStart?: boolean;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function runMain(
  env: Record<string, string>,
  opts: RunOptions = {},
): {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
} {
  const argv = opts.asNpmStart ? [...NODE_FLAGS, ENTRY] : [MAIN];
  const child = spawn(process.execPath, argv, {
    // no weekly link sweep of the real catalog from a test (it would reach outside)
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      LINK_CHECK_SCHEDULE: 'off',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  // Whole lines only: a JSON log line can arrive split across two chunks.
  createInterface({ input: child.stdout! }).on('line', (line) => stdout.push(line));
  child.stderr!.on('data', (d) => stderr.push(String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stdout, stderr, exited };
}

export async function startServer(
  env: Record<string, string>,
  timeoutMs = 60_000,
  opts: RunOptions = {},
): Promise<ServerProcess> {
  const { child, stdout, stderr, exited } = runMain(env, opts);
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => {
      // Never leave a half-started service behind: its pipes would keep the test alive.
      child.kill('SIGKILL');
      rej(new Error(`server did not start within ${timeoutMs} ms: ${stderr.join('')}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      const line = stdout.find((l) => l.includes('optout is listening'));
      if (line) {
        clearInterval(poll);
        clearTimeout(timer);
        res(JSON.parse(line).address);
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(poll);
      clearTimeout(timer);
      rej(new Error(`server exited with ${code}: ${stderr.join('')}`));
    });
  });
  return {
    child,
    url,
    stdout,
    stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

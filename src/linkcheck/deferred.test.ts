import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { queueWhenOpen } from './deferred.ts';
import type { JobQueue } from './queue.ts';

/** an open queue that records what it was asked (the real one is tested in queue.test.ts and schedule.test.ts) */
function recordingQueue() {
  const calls: string[] = [];
  const queue = {
    async enqueue(slug: string) {
      calls.push(`enqueue ${slug}`);
      return { jobId: `job-${slug}`, joined: false };
    },
    async sweepNow() {
      calls.push('sweep');
      return 'sweep-1';
    },
    async stop() {
      calls.push('stop');
    },
  } as unknown as JobQueue;
  return { calls, queue };
}

describe('the link-check queue before it is open', () => {
  test('nothing is opened until asked; open() opens once however often it is called', async () => {
    const { calls, queue } = recordingQueue();
    let opens = 0;
    const deferred = queueWhenOpen(async () => {
      opens++;
      return queue;
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(opens, 0);
    await Promise.all([deferred.open(), deferred.open()]);
    assert.equal(await deferred.sweepNow(), 'sweep-1');
    assert.equal(opens, 1);
    await deferred.stop();
    assert.deepEqual(calls, ['sweep', 'stop']);
  });

  test('a check requested while the queue opens is queued once it is open', async () => {
    const { calls, queue } = recordingQueue();
    let ready!: (q: JobQueue) => void;
    const deferred = queueWhenOpen(() => new Promise((resolve) => (ready = resolve)));
    const opened = deferred.open();
    const asked = deferred.enqueue('netflix');
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(calls, [], 'nothing reaches the queue before it is open');
    ready(queue);
    await opened;
    assert.deepEqual(await asked, { jobId: 'job-netflix', joined: false });
    assert.deepEqual(calls, ['enqueue netflix']);
  });

  test('an opening that fails fails its calls with the reason, and the next call opens again', async () => {
    const failure = Object.assign(new Error('database unavailable'), { code: 'ECONNREFUSED' });
    const { calls, queue } = recordingQueue();
    let opens = 0;
    const deferred = queueWhenOpen(async () => {
      opens++;
      if (opens === 1) throw failure;
      return queue;
    });
    await assert.rejects(deferred.open(), { code: 'ECONNREFUSED' });
    await deferred.stop(); // nothing open: nothing to stop
    assert.deepEqual(await deferred.enqueue('netflix'), { jobId: 'job-netflix', joined: false });
    assert.equal(opens, 2);
    assert.deepEqual(calls, ['enqueue netflix']);
  });

  test('stopping a queue never opened opens nothing', async () => {
    let opens = 0;
    const deferred = queueWhenOpen(async () => {
      opens++;
      return recordingQueue().queue;
    });
    await deferred.stop();
    assert.equal(opens, 0);
  });
});

// Runs BullMQ's queue, worker and events API, unchanged, against one Redis-protocol server and prints one line
// per step: "PASS <step> (<ms> ms)" or "FAIL <step>: <reason>". Exit status 0 when every step passed.
//
// Usage: node bullmq-check.mjs <port> <bullmq-install-dir> [step,step,...]
//   bullmq-install-dir: a directory whose node_modules holds bullmq and ioredis (bullmq-check.sh makes it).
//   steps: the steps to run, by name (default: all).
// Each step uses a queue of its own, so a failed step leaves nothing that changes the next one. A step that
// does not finish within STEP_TIMEOUT_MS fails with "timed out" rather than hanging the run.
import { createRequire } from 'node:module';
import path from 'node:path';

const [port, installDir, only] = process.argv.slice(2);
if (!port || !installDir) {
  console.error('usage: node bullmq-check.mjs <port> <bullmq-install-dir>');
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(installDir), 'package.json'));
const { Queue, Worker, QueueEvents, FlowProducer } = require('bullmq');

const STEP_TIMEOUT_MS = 20_000;
// BullMQ asks for maxRetriesPerRequest null on the connections its workers block on.
const connection = { host: '127.0.0.1', port: Number(port), maxRetriesPerRequest: null };
const run = `${process.pid}-${Date.now()}`;
const opened = [];

function open(thing) {
  opened.push(thing);
  return thing;
}

function queueNamed(step) {
  return open(new Queue(`check-${step}-${run}`, { connection }));
}

function workerOn(queue, processor, options = {}) {
  return open(new Worker(queue.name, processor, { connection, concurrency: 1, ...options }));
}

/** Resolves with the first `event` the worker emits for which `accept` holds. */
function once(emitter, event, accept = () => true) {
  return new Promise((resolve) => {
    const listener = (...args) => {
      if (accept(...args)) {
        emitter.off(event, listener);
        resolve(args);
      }
    };
    emitter.on(event, listener);
  });
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

const steps = {
  // A queue's first call: BullMQ reads INFO (redis_version, maxmemory_policy) and loads its Lua scripts.
  async connect() {
    const queue = queueNamed('connect');
    await queue.waitUntilReady();
    const counts = await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
    expect(Object.values(counts).every((n) => n === 0), `a new queue counts ${JSON.stringify(counts)}`);
  },

  async addAndProcess() {
    const queue = queueNamed('process');
    const done = [];
    const worker = workerOn(queue, async (job) => job.data.n * 2);
    const allDone = new Promise((resolve) => worker.on('completed', (job, result) => {
      done.push([job.data.n, result]);
      if (done.length === 3) resolve();
    }));
    for (const n of [1, 2, 3]) await queue.add('double', { n });
    await allDone;
    expect(JSON.stringify(done) === JSON.stringify([[1, 2], [2, 4], [3, 6]]), `results ${JSON.stringify(done)}`);
    const counts = await queue.getJobCounts('waiting', 'active', 'completed');
    expect(counts.completed === 3 && counts.waiting === 0 && counts.active === 0, `counts ${JSON.stringify(counts)}`);
  },

  // A job that fails once is retried (through the delayed set, by its backoff) and then completes.
  async retry() {
    const queue = queueNamed('retry');
    let calls = 0;
    const worker = workerOn(queue, async (job) => {
      calls++;
      if (job.attemptsMade === 0) throw new Error('first attempt fails');
      return 'second attempt';
    });
    const failed = once(worker, 'failed');
    const completed = once(worker, 'completed');
    const job = await queue.add('flaky', {}, { attempts: 2, backoff: { type: 'fixed', delay: 200 } });
    const [failedJob, error] = await failed;
    expect(failedJob.id === job.id && error.message === 'first attempt fails', `failed event ${error?.message}`);
    const [completedJob, result] = await completed;
    expect(completedJob.id === job.id && result === 'second attempt', `completed with ${result}`);
    expect(calls === 2, `processor ran ${calls} times`);
    const stored = await queue.getJob(job.id);
    expect(await stored.getState() === 'completed', `state ${await stored.getState()}`);
    expect(stored.attemptsMade === 2, `attemptsMade ${stored.attemptsMade}`);
  },

  // A job that fails every attempt ends in the failed set with its reason.
  async exhaustRetries() {
    const queue = queueNamed('exhaust');
    const worker = workerOn(queue, async () => { throw new Error('always fails'); });
    const job = await queue.add('doomed', {}, { attempts: 2 });
    await once(worker, 'failed', (j) => j.id === job.id && j.attemptsMade === 2);
    const stored = await queue.getJob(job.id);
    expect(await stored.getState() === 'failed', `state ${await stored.getState()}`);
    expect(stored.failedReason === 'always fails', `failedReason ${stored.failedReason}`);
    expect((await queue.getFailedCount()) === 1, 'failed count');
  },

  // A delayed job waits in the delayed set and is not processed before its delay has passed.
  async delay() {
    const queue = queueNamed('delay');
    const delay = 500;
    const job = await queue.add('later', { at: Date.now() }, { delay });
    expect(await job.getState() === 'delayed', `state right after add: ${await job.getState()}`);
    expect((await queue.getDelayedCount()) === 1, 'delayed count');
    const worker = workerOn(queue, async (j) => Date.now() - j.timestamp);
    const [done, waited] = await once(worker, 'completed');
    expect(done.id === job.id, 'the delayed job completed');
    expect(waited >= delay, `processed ${waited} ms after it was added, delay ${delay} ms`);
  },

  // Higher priority (lower number) first, among jobs waiting while the worker was paused.
  async priority() {
    const queue = queueNamed('priority');
    await queue.add('low', {}, { priority: 10 });
    await queue.add('high', {}, { priority: 1 });
    await queue.add('middle', {}, { priority: 5 });
    const order = [];
    const worker = workerOn(queue, async (job) => { order.push(job.name); });
    await new Promise((resolve) => worker.on('completed', () => order.length === 3 && resolve()));
    expect(order.join(',') === 'high,middle,low', `order ${order}`);
  },

  // QueueEvents reads the queue's event stream (XREAD BLOCK) as another process would.
  async queueEvents() {
    const queue = queueNamed('events');
    const events = open(new QueueEvents(queue.name, { connection }));
    await events.waitUntilReady();
    const completed = once(events, 'completed');
    workerOn(queue, async () => 'seen');
    const job = await queue.add('observed', {});
    const [{ jobId, returnvalue }] = await completed;
    expect(jobId === job.id, `event for job ${jobId}`);
    expect(returnvalue === 'seen', `returnvalue ${JSON.stringify(returnvalue)}`);
  },

  // A parent job runs after its children, and sees their results.
  async flow() {
    const queue = queueNamed('flow');
    const flows = open(new FlowProducer({ connection }));
    const worker = workerOn(queue, async (job) => {
      if (job.name === 'child') return job.data.n;
      const values = Object.values(await job.getChildrenValues());
      return values.reduce((a, b) => a + b, 0);
    });
    const parentDone = once(worker, 'completed', (job) => job.name === 'parent');
    await flows.add({
      name: 'parent', queueName: queue.name,
      children: [1, 2, 3].map((n) => ({ name: 'child', queueName: queue.name, data: { n } })),
    });
    const [, sum] = await parentDone;
    expect(sum === 6, `parent saw ${sum}`);
  },

  // Progress updates reach the worker's listeners and the stored job.
  async progress() {
    const queue = queueNamed('progress');
    const worker = workerOn(queue, async (job) => {
      await job.updateProgress(50);
      await job.log('halfway');
      await job.updateProgress(100);
      return 'done';
    });
    const seen = [];
    worker.on('progress', (job, p) => seen.push(p));
    const job = await queue.add('tracked', {});
    await once(worker, 'completed');
    expect(seen.join(',') === '50,100', `progress events ${seen}`);
    const stored = await queue.getJob(job.id);
    expect(stored.progress === 100, `stored progress ${stored.progress}`);
    const { logs, count } = await queue.getJobLogs(job.id);
    expect(count === 1 && logs[0] === 'halfway', `logs ${JSON.stringify(logs)}`);
  },

  // A paused queue keeps its jobs waiting; resuming lets the worker take them.
  async pauseResume() {
    const queue = queueNamed('pause');
    await queue.pause();
    expect(await queue.isPaused(), 'paused');
    await queue.add('held', {});
    const worker = workerOn(queue, async () => 'ran');
    const completed = once(worker, 'completed');
    expect((await queue.getJobCounts('paused', 'wait')).paused + (await queue.getWaitingCount()) >= 1,
      'the job waits while paused');
    await queue.resume();
    await completed;
    expect(!(await queue.isPaused()), 'resumed');
  },

  // removeOnComplete, getJobs, clean and obliterate: the housekeeping calls dashboards and deploys use.
  async housekeeping() {
    const queue = queueNamed('housekeeping');
    const worker = workerOn(queue, async (job) => job.data.n);
    let done = 0;
    const allDone = new Promise((resolve) => worker.on('completed', () => ++done === 4 && resolve()));
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'kept', data: { n } })));
    await queue.add('dropped', { n: 4 }, { removeOnComplete: true });
    await allDone;
    const completed = await queue.getJobs(['completed']);
    expect(completed.map((j) => j.data.n).sort().join(',') === '1,2,3', `completed ${completed.map((j) => j.data.n)}`);
    const cleaned = await queue.clean(0, 10, 'completed');
    expect(cleaned.length === 3, `cleaned ${cleaned.length}`);
    await worker.close();
    await queue.add('left', {});
    await queue.obliterate({ force: true });
    const counts = await queue.getJobCounts();
    expect(Object.values(counts).every((n) => n === 0), `after obliterate ${JSON.stringify(counts)}`);
  },

  // A worker's rate limit: at most max jobs per duration; all jobs still complete.
  async rateLimit() {
    const queue = queueNamed('ratelimit');
    const worker = workerOn(queue, async () => Date.now(), { limiter: { max: 2, duration: 500 } });
    const times = [];
    const allDone = new Promise((resolve) => worker.on('completed', (job, t) => times.push(t) === 4 && resolve()));
    await queue.addBulk([1, 2, 3, 4].map((n) => ({ name: 'limited', data: { n } })));
    await allDone;
    times.sort((a, b) => a - b);
    expect(times[2] - times[0] >= 400, `third job ${times[2] - times[0]} ms after the first, limit 2 per 500 ms`);
  },

  // A job scheduler (the repeatable jobs of BullMQ 5+) produces jobs every interval.
  async jobScheduler() {
    const queue = queueNamed('scheduler');
    await queue.upsertJobScheduler('tick', { every: 300 }, { name: 'tick', data: {} });
    const worker = workerOn(queue, async () => 'tock');
    let runs = 0;
    await new Promise((resolve) => worker.on('completed', () => ++runs === 2 && resolve()));
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.length === 1 && schedulers[0].key === 'tick', `schedulers ${JSON.stringify(schedulers)}`);
    expect(await queue.removeJobScheduler('tick'), 'removed');
  },

  // Deduplication: a second add with the same id while the first is waiting adds nothing.
  async deduplication() {
    const queue = queueNamed('dedup');
    const a = await queue.add('once', { v: 1 }, { deduplication: { id: 'same' } });
    const b = await queue.add('once', { v: 2 }, { deduplication: { id: 'same' } });
    expect(a.id === b.id, `second add made job ${b.id}, first ${a.id}`);
    expect((await queue.getWaitingCount()) === 1, 'one waiting job');
  },

  // What dashboards call: the workers on a queue (CLIENT LIST by name), metrics, and a failed job retried,
  // a delayed one promoted, a job awaited through QueueEvents.
  async inspection() {
    const queue = queueNamed('inspection');
    const events = open(new QueueEvents(queue.name, { connection }));
    await events.waitUntilReady();
    let failOnce = true;
    const worker = workerOn(queue, async (job) => {
      if (job.name === 'retried' && failOnce) { failOnce = false; throw new Error('once'); }
      return job.name;
    }, { metrics: { maxDataPoints: 60 } });
    await worker.waitUntilReady();
    const workers = await queue.getWorkers();
    expect(workers.length === 1, `getWorkers found ${workers.length}`);
    const retried = await queue.add('retried', {});
    await once(worker, 'failed', (j) => j.id === retried.id);
    await (await queue.getJob(retried.id)).retry();
    expect(await retried.waitUntilFinished(events, STEP_TIMEOUT_MS) === 'retried', 'retried job finished');
    const later = await queue.add('promoted', {}, { delay: 60_000 });
    await later.promote();
    expect(await later.waitUntilFinished(events, STEP_TIMEOUT_MS) === 'promoted', 'promoted job finished');
    const metrics = await queue.getMetrics('completed');
    expect(metrics.meta.count >= 2, `completed metric ${JSON.stringify(metrics.meta)}`);
  },
};

function withTimeout(promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const chosen = only ? only.split(',') : Object.keys(steps);
const unknown = chosen.filter((name) => !(name in steps));
if (unknown.length) {
  console.error(`no such step: ${unknown.join(', ')}`);
  process.exit(2);
}
let failures = 0;
for (const name of chosen) {
  const step = steps[name];
  const started = Date.now();
  try {
    await withTimeout(step());
    console.log(`PASS ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${name}: ${e?.message ?? e}`);
  }
  while (opened.length) {
    const thing = opened.pop();
    await withTimeout(thing.close()).catch(() => {});
  }
}
process.exit(failures === 0 ? 0 : 1);

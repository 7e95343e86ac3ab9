// Which engine runs the containers of a test. Building, tagging, pushing and pulling are tested on the engine under
// test (dockerd or podman, whichever DOCKER_HOST names); running a container is too, except where podman cannot start
// containers on this machine (`error setting rlimit type 7` in these sandboxes). Then the test says so once and runs
// its containers on dockerd instead; nothing else is excused.
import { ensureBusyboxBase } from '../../../../lib/oci/base-image.js';
import { connectEngine, identifyEngine, type Engine } from '../../../../lib/oci/engine.js';
import { pullImage } from '../../../../lib/oci/pull.js';

const DOCKERD_SOCKET = 'unix:///var/run/docker.sock';
const runners = new WeakMap<Engine, Promise<Engine>>();

async function whyContainersCannotRun(engine: Engine): Promise<string | undefined> {
  const base = await ensureBusyboxBase(engine);
  let container;
  try {
    container = await engine.createContainer({ Image: base.tag, Cmd: ['true'], Labels: { 'ocp-e2e.io/test': 'can-run' } });
    await container.start();
    await container.wait();
    return undefined;
  } catch (error) {
    return ((error as { json?: { message?: string } }).json?.message ?? (error as Error).message).trim();
  } finally {
    await container?.remove({ force: true }).catch(() => undefined);
  }
}

async function pickRunner(engine: Engine): Promise<Engine> {
  const id = await identifyEngine(engine);
  if (id.kind !== 'podman') return engine;
  const problem = await whyContainersCannotRun(engine);
  if (!problem) return engine;
  const other = await connectEngine({ env: { DOCKER_HOST: DOCKERD_SOCKET } }).catch(() => undefined);
  if (!other) {
    throw new Error(`${id.name} at ${id.address ?? 'DOCKER_HOST'} cannot run containers on this machine (${problem}), and no dockerd answers at ${DOCKERD_SOCKET} to run them instead`);
  }
  const otherId = await identifyEngine(other);
  console.log(`      note: ${id.name} cannot run containers on this machine (${problem}); this test's containers run on ${otherId.name} at ${DOCKERD_SOCKET} (its builds and pushes stay on ${id.name})`);
  return other;
}

/** The engine to run containers on: `engine` itself when it can. */
export function containerEngine(engine: Engine): Promise<Engine> {
  let known = runners.get(engine);
  if (!known) {
    known = pickRunner(engine);
    runners.set(engine, known);
  }
  return known;
}

/** The engine that will run `image`, with the image in it (pulled from its registry when it runs elsewhere). */
export async function engineToRun(engine: Engine, image: string): Promise<Engine> {
  const runner = await containerEngine(engine);
  if (runner !== engine) {
    const present = await runner.getImage(image).inspect().then(() => true, () => false);
    if (!present) await pullImage(runner, image);
  }
  return runner;
}

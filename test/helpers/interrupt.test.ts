import { expect } from 'chai';
import { Cleanup, type Registered } from '../../helpers/cleanup.js';
import { handleInterrupts } from '../../helpers/interrupt.js';

/** An interrupted spec process, without the process: signals emitted by hand, exit and log captured. */
function interruptible(graceMs: number, settleMs: number, handOver?: (machineConfigs: Registered) => Promise<string | undefined>) {
  const cleanup = new Cleanup();
  const log: string[] = [];
  let exited: number | undefined;
  const done = new Promise<number>((resolve) => {
    const uninstall = handleInterrupts({
      cleanup,
      handOver: handOver && (() => handOver(machineConfigs)),
      settle: () => true,
      graceMs: () => graceMs,
      log: (t) => log.push(t),
      exit: (code) => {
        exited = code;
        uninstall();
        resolve(code);
      },
    });
  });
  const undone: string[] = [];
  cleanup.add({ description: 'remove local image', undo: async () => void undone.push('image'), byHand: ['docker rmi x'] });
  const machineConfigs = cleanup.add({
    description: 'delete MachineConfigs a, b',
    undo: async () => void undone.push('mcs'),
    byHand: ['oc delete machineconfig a b'],
    settle: { description: 'wait until pools worker settle without them', run: () => new Promise((r) => setTimeout(r, settleMs)), byHand: ['oc get mcp worker -w'] },
  });
  return { cleanup, log, done, undone, exited: () => exited };
}

describe('helpers: an interrupted spec undoes what it changed, or says what is left and how to undo it', () => {
  it('undoes and settles within the grace, then exits 130 without naming a signal it cannot know', async () => {
    const t = interruptible(2000, 10);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM'); // mocha's launcher follows its SIGINT with a SIGTERM: not a second interrupt
    expect(await t.done).to.equal(130);
    expect(t.undone).to.deep.equal(['mcs', 'image']);
    expect(t.log.join('\n')).to.not.match(/SIG(INT|TERM)/);
    expect(t.log.at(-1)).to.equal('    interrupted: undone: delete MachineConfigs a, b, then wait until pools worker settle without them; remove local image');
  });

  it('when the settle outlasts the grace: exits, listing only what is left (the settle, the image) with the commands', async () => {
    const t = interruptible(100, 1000);
    process.emit('SIGINT', 'SIGINT');
    expect(await t.done).to.equal(130);
    expect(t.log.at(-1)).to.equal(
      [
        '    interrupted: the undo did not finish within 0.1 s: left on the cluster; undo it by hand:',
        '      - wait until pools worker settle without them',
        '          oc get mcp worker -w',
        '      - remove local image',
        '          docker rmi x',
      ].join('\n'),
    );
  });

  it('with no grace: undoes nothing and lists all of it', async () => {
    const t = interruptible(0, 10);
    process.emit('SIGINT', 'SIGINT');
    expect(await t.done).to.equal(130);
    expect(t.undone).to.deep.equal([]);
    expect(t.log.at(-1)).to.include('- delete MachineConfigs a, b, then wait until pools worker settle without them\n          oc delete machineconfig a b\n          oc get mcp worker -w');
  });

  it('during an upgrade: what was handed to a checkpoint stays, the rest is undone, and the user is told how to go on', async () => {
    const t = interruptible(2000, 10, async (machineConfigs) => {
      machineConfigs.dismiss();
      return 'the upgrade is under way: the overrides stay; checkpoint configmap/c -n ocp-e2e written';
    });
    process.emit('SIGINT', 'SIGINT');
    expect(await t.done).to.equal(130);
    expect(t.undone, 'only the local image').to.deep.equal(['image']);
    expect(t.log).to.deep.equal([
      '    interrupted: the upgrade is under way: the overrides stay; checkpoint configmap/c -n ocp-e2e written',
      '    interrupted: undone: remove local image',
    ]);
  });

  it('when the checkpoint cannot be written: says so and undoes everything, as without an upgrade', async () => {
    const t = interruptible(2000, 10, async () => {
      throw new Error('configmaps is forbidden');
    });
    process.emit('SIGINT', 'SIGINT');
    expect(await t.done).to.equal(130);
    expect(t.undone).to.deep.equal(['mcs', 'image']);
    expect(t.log[0]).to.equal('    interrupted: could not leave a checkpoint (configmaps is forbidden); undoing instead');
  });
});

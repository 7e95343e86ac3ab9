/**
 * `oc` calls that a passing API error failed are run again (helpers/cli-transient.ts), so that the report's
 * `oc adm upgrade` does not fail an upgrade test on one 500; a failure of the cluster's state is not retried.
 */
import { expect } from 'chai';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { CliResult } from '../../helpers/cli.js';
import { isTransientOcError, retryTransientCli } from '../../helpers/cli-transient.js';
import type { Cluster } from '../../helpers/cluster.js';
import { triggerUpgrade } from '../../helpers/upgrade.js';

const result = (exitCode: number, stderr = ''): CliResult => ({ command: 'oc x', exitCode, stdout: '', stderr });
const INTERNAL = 'Error from server (InternalError): Internal error occurred: injected fault';
const fast = { attempts: 4, firstPauseMs: 1 };

describe('helpers: oc calls through passing API errors', () => {
  it('runs again while the stderr names a passing API error, and stops at the first success', async () => {
    const answers = [result(1, INTERNAL), result(1, 'error: unexpected EOF'), result(0)];
    let runs = 0;
    const { result: last, attempts } = await retryTransientCli(async () => answers[runs++]!, undefined, fast);
    expect([last.exitCode, attempts, runs]).to.deep.equal([0, 3, 3]);
  });

  it('does not run again for an error of the cluster state, and stops after its attempts', async () => {
    let runs = 0;
    const refused = await retryTransientCli(async () => (runs++, result(1, 'error: the server could not find the requested resource (get clusterversions.config.openshift.io version)')), undefined, fast);
    expect([refused.attempts, runs]).to.deep.equal([1, 1]);
    runs = 0;
    const spent = await retryTransientCli(async () => (runs++, result(1, INTERNAL)), undefined, fast);
    expect([spent.result.exitCode, spent.attempts, runs]).to.deep.equal([1, 4, 4]);
  });

  it('knows the passing errors oc prints from the ones it does not', () => {
    expect(isTransientOcError(INTERNAL)).to.equal(true);
    expect(isTransientOcError('Unable to connect to the server: dial tcp 127.0.0.1:6443: connect: connection refused')).to.equal(true);
    expect(isTransientOcError('error: Already upgrading, pass --allow-upgrade-with-warnings to override.')).to.equal(false);
  });

  describe('triggerUpgrade with an oc whose first run meets a 500', () => {
    const pathBefore = process.env.PATH;
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-fake-oc-'));
      // counts its `adm upgrade` runs in a file; the first answers like oc after an InternalError
      writeFileSync(join(dir, 'oc'), `#!/bin/sh
case "$*" in *version*) echo "Client Version: 4.12.0"; exit 0;; esac
n=$(cat "${dir}/runs" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/runs"
if [ $n -eq 1 ]; then echo "${INTERNAL}" >&2; exit 1; fi
echo "Requested update to release image $2"
`);
      chmodSync(join(dir, 'oc'), 0o755);
      process.env.PATH = `${dir}${delimiter}${pathBefore ?? ''}`;
    });
    afterEach(() => {
      process.env.PATH = pathBefore;
      rmSync(dir, { recursive: true, force: true });
    });

    it('runs the report\'s command again and says so in its output', async () => {
      const t = await triggerUpgrade({} as Cluster, join(dir, 'kubeconfig'), '127.0.0.1:5000/ocp/release:4.12.1');
      expect(t.method).to.equal('oc adm upgrade');
      expect(readFileSync(join(dir, 'runs'), 'utf8').trim()).to.equal('2');
      expect(t.output).to.include('Requested update to release image').and.include('run 2 times');
    });
  });
});

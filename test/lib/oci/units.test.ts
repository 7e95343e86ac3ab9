// Pure functions of helpers/images and reference/releases: no engine, no registry.
import { expect } from 'chai';
import { BuildStreamParser, classifyBuildError } from '../../../lib/oci/build.js';
import {
  BaseImageUnavailableError,
  BuildStepFailedError,
  ContainerfileSyntaxError,
  ImageBuildError,
} from '../../../lib/oci/errors.js';
import { imageForTag, makeImageReferences, parseImageReferences, taggedImage } from '../../../lib/oci/release-payload.js';
import { parseOsRelease, parseRpmDb } from '../../../reference/releases/index.js';

describe('images: pure helpers', () => {
  it('parses every object of a build stream, split anywhere, several per line', () => {
    const seen: object[] = [];
    const parser = new BuildStreamParser((o) => seen.push(o));
    parser.push('{"stream":"Step 1/2 : FROM x\\n"}\n{"str');
    parser.push('eam":"a"}{"aux":{"ID":"sha256:1"}}\n');
    parser.push('{"errorDetail":{"message":"boom"},"error":"boom"}');
    parser.end();
    expect(seen).to.deep.equal([
      { stream: 'Step 1/2 : FROM x\n' },
      { stream: 'a' },
      { aux: { ID: 'sha256:1' } },
      { errorDetail: { message: 'boom' }, error: 'boom' },
    ]);
  });

  it('keeps a multi-byte character split across chunks', () => {
    const seen: { stream?: string }[] = [];
    const parser = new BuildStreamParser((o) => seen.push(o));
    const bytes = Buffer.from('{"stream":"Größe ✓"}\n');
    parser.push(bytes.subarray(0, 16)); // ends inside "ß"
    parser.push(bytes.subarray(16));
    parser.end();
    expect(seen).to.deep.equal([{ stream: 'Größe ✓' }]);
  });

  it('classifies engine build errors', () => {
    const run = classifyBuildError("The command '/bin/sh -c false' returned a non-zero code: 3", 'Step 2/2 : RUN false', ['x']);
    expect(run).to.be.instanceOf(BuildStepFailedError);
    expect((run as BuildStepFailedError).exitCode).to.equal(3);
    expect(classifyBuildError('(HTTP code 400) unexpected - dockerfile parse error line 1: FROM requires either one or three arguments', undefined, []))
      .to.be.instanceOf(ContainerfileSyntaxError);
    const denied = classifyBuildError(
      'pull access denied for quay.io/private/os, repository does not exist or may require \'docker login\': denied: requested access to the resource is denied',
      'Step 2/3 : FROM ${BASE_IMAGE}',
      [],
      { BASE_IMAGE: 'quay.io/private/os:1' },
    ) as BaseImageUnavailableError;
    expect(denied).to.be.instanceOf(BaseImageUnavailableError);
    expect(denied.unauthorized).to.equal(true);
    expect(denied.baseImage).to.equal('quay.io/private/os:1');
    const other = classifyBuildError('no space left on device', 'Step 3/3 : RUN x', []);
    expect(other).to.be.instanceOf(ImageBuildError).and.not.instanceOf(BuildStepFailedError);
  });

  it('writes and reads image-references like a payload, with 4.12 and 4.13 OS tag names', () => {
    const doc = makeImageReferences('4.12.0', { 'rhel-coreos-8': 'r/a@sha256:1', 'machine-os-content': 'r/b@sha256:2' });
    expect(doc).to.deep.include({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1' });
    expect(doc.spec.tags[0]).to.deep.include({ name: 'machine-os-content', from: { kind: 'DockerImage', name: 'r/b@sha256:2' } });
    const images = parseImageReferences(JSON.stringify(doc), 'test');
    expect(imageForTag(images, 'rhel-coreos')).to.equal('r/a@sha256:1');
    expect(imageForTag({ 'rhel-coreos': 'r/c@sha256:3' }, 'rhel-coreos-8')).to.equal('r/c@sha256:3');
    // the name the payload gives it, for messages about a 4.13 release ("rhel-coreos of 4.13.0")
    expect(taggedImage({ 'rhel-coreos': 'r/c@sha256:3' }, 'rhel-coreos-8')).to.deep.equal({ pullspec: 'r/c@sha256:3', tag: 'rhel-coreos' });
    expect(taggedImage(images, 'rhel-coreos-8')).to.deep.equal({ pullspec: 'r/a@sha256:1', tag: 'rhel-coreos-8' });
    expect(taggedImage(images, 'cli')).to.equal(undefined);
    expect(() => parseImageReferences('{"kind":"List"}', 'payload X')).to.throw(/payload X.*ImageStream/);
  });

  it('parses os-release and the package database', () => {
    expect(parseOsRelease('# c\nNAME="Red Hat Enterprise Linux CoreOS"\nID=rhcos\nX=\'a b\'\nQ="say \\"hi\\""\n')).to.deep.equal({
      NAME: 'Red Hat Enterprise Linux CoreOS',
      ID: 'rhcos',
      X: 'a b',
      Q: 'say "hi"',
    });
    expect(parseRpmDb('# header\nzsh\t5.5.1\t10.el8\tx86_64\n\nbroken line\n')).to.deep.equal([
      { name: 'zsh', version: '5.5.1', release: '10.el8', arch: 'x86_64' },
    ]);
  });
});

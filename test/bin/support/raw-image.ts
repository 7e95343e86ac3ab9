/**
 * Pushes a one-layer image made of the given files straight through the registry HTTP API v2 (no engine): enough for
 * tests that need a release payload, or an image that is not one, in a loopback registry.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { create as createTar } from 'tar';

const sha256 = (data: Buffer) => `sha256:${createHash('sha256').update(data as Uint8Array).digest('hex')}`;

async function pushBlob(registry: string, repository: string, data: Buffer): Promise<string> {
  const digest = sha256(data);
  const start = await fetch(`http://${registry}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
  if (start.status !== 202) throw new Error(`blob upload to ${registry}/${repository}: HTTP ${start.status}`);
  const location = new URL(start.headers.get('location')!, `http://${registry}`);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, { method: 'PUT', body: new Uint8Array(data), headers: { 'Content-Type': 'application/octet-stream' } });
  if (put.status !== 201) throw new Error(`blob put to ${registry}/${repository}: HTTP ${put.status} ${await put.text()}`);
  return digest;
}

/** Pushes `<registry>/<repository>:<tag>` whose only layer holds `files` (path → content). */
export async function pushRawImage(registry: string, repository: string, tag: string, files: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ocp-e2e-raw-image-'));
  try {
    const root = join(dir, 'root');
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const tarFile = join(dir, 'layer.tar');
    await createTar({ cwd: root, file: tarFile, portable: true }, Object.keys(files).map((p) => p.replace(/^\//, '')));
    const layer = readFileSync(tarFile);
    const layerDigest = await pushBlob(registry, repository, layer);
    const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: {}, rootfs: { type: 'layers', diff_ids: [layerDigest] } }));
    const configDigest = await pushBlob(registry, repository, config);
    const manifest = {
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: config.length, digest: configDigest },
      layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar', size: layer.length, digest: layerDigest }],
    };
    const put = await fetch(`http://${registry}/v2/${repository}/manifests/${tag}`, {
      method: 'PUT',
      body: JSON.stringify(manifest),
      headers: { 'Content-Type': manifest.mediaType },
    });
    if (put.status !== 201) throw new Error(`manifest put ${registry}/${repository}:${tag}: HTTP ${put.status} ${await put.text()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The two files that make an image an OpenShift release payload, for `version`. */
export function releasePayloadFiles(version: string, images: Record<string, string> = {}): Record<string, string> {
  const imageReferences = {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version },
    spec: { tags: Object.entries(images).map(([name, image]) => ({ name, from: { kind: 'DockerImage', name: image } })) },
  };
  return {
    'release-manifests/image-references': JSON.stringify(imageReferences),
    'release-manifests/release-metadata': JSON.stringify({ kind: 'cincinnati-metadata-v0', version, previous: [], metadata: {} }),
  };
}

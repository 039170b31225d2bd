import { http, HttpResponse } from 'msw';
import type { ClientBuildStatus, ClientPlatform, ClientVersion } from '../../../contracts/clientVersions';
import { problem } from '../msw';

export const aClientVersion = (overrides: Partial<ClientVersion> = {}): ClientVersion => ({
  version: '0.1.0-be60504',
  platform: 'windows',
  fileName: 'warden-0.1.0-be60504-windows.zip',
  size: 28_912_808,
  sha256: '4cf6c19951638f9b2b870662513c6f136ec00c2db489d61b35edb981d8d6f0fa',
  releasedAt: '2025-03-04T05:06:07.000Z',
  notes: '### Command-line client\n- login, instances, backups',
  latest: true,
  ...overrides,
});

export const aBuildStatus = (overrides: Partial<ClientBuildStatus> = {}): ClientBuildStatus => ({
  state: 'succeeded',
  version: '0.1.0-be60504',
  step: 'Done',
  percent: 100,
  startedAt: '2025-03-04T05:05:00.000Z',
  finishedAt: '2025-03-04T05:06:07.000Z',
  error: null,
  ...overrides,
});

/**
 * /client-versions as the server answers it: lists per platform (newest first, the first latest),
 * removal of any but the latest, and a build status a test may move along (`setBuild`).
 */
export function clientsServer(versions: ClientVersion[], build: ClientBuildStatus = aBuildStatus()) {
  const state = { versions: [...versions], build };
  const removed: { version: string; platform: string | null }[] = [];
  const listed = (platform: ClientPlatform) =>
    state.versions.filter((v) => v.platform === platform).map((v, index) => ({ ...v, latest: index === 0 }));
  const handlers = [
    http.get('/client-versions/windows', () => HttpResponse.json(listed('windows'))),
    http.get('/client-versions/containers', () => HttpResponse.json(listed('containers'))),
    http.get('/client-versions/build', () => HttpResponse.json(state.build)),
    http.delete('/client-versions/:version', ({ params, request }) => {
      const platform = new URL(request.url).searchParams.get('platform');
      removed.push({ version: String(params.version), platform });
      const release = listed(platform as ClientPlatform).find((v) => v.version === params.version);
      if (!release) return problem(404, 'Not Found', `There is no ${platform} client version ${params.version}.`);
      if (release.latest) return problem(409, 'Conflict', `${params.version} is the latest ${platform} client: it cannot be removed.`);
      state.versions = state.versions.filter((v) => !(v.version === params.version && v.platform === platform));
      return HttpResponse.json({ version: params.version, platform });
    }),
  ];
  return {
    handlers,
    removed,
    setBuild: (next: ClientBuildStatus) => (state.build = next),
    addVersion: (version: ClientVersion) => state.versions.unshift(version),
  };
}

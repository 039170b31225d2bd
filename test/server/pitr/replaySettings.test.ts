import { replaySettings } from '../../../server/engines/pgPointRestore';

const gib = 1024 ** 3;
const buffers = (settings: string[]) => settings.find((setting) => setting.startsWith('shared_buffers='));

describe('the settings of the server that replays a restore', () => {
  it('takes no restartpoint while it replays', () => {
    expect(replaySettings(null, 24 * gib)).toEqual(expect.arrayContaining(['max_wal_size=64GB', 'checkpoint_timeout=1d']));
  });

  it('gives it 1 GiB of buffers, less under a small memory limit or on a small machine, never under 128 MB', () => {
    expect(buffers(replaySettings(null, 24 * gib))).toBe('shared_buffers=1024MB');
    expect(buffers(replaySettings(16 * gib, 24 * gib))).toBe('shared_buffers=1024MB');
    expect(buffers(replaySettings(2 * gib, 24 * gib))).toBe('shared_buffers=512MB');
    expect(buffers(replaySettings(null, 2 * gib))).toBe('shared_buffers=256MB');
    expect(buffers(replaySettings(256 * 1024 ** 2, 24 * gib))).toBe('shared_buffers=128MB');
  });
});
